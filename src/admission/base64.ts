/** Node's Buffer when the platform has one (Node, workerd with nodejs_compat); the core does not need it. */
const NodeBuffer = (globalThis as { Buffer?: { from(text: string, encoding: 'utf8'): { toString(encoding: 'base64'): string } } }).Buffer;

/**
 * UTF-8 text to base64. With `Buffer` in one native call (every reply with a patch pays this; Node's
 * `btoa` is written in JavaScript and walks the text twice). Without it (the core runs on Workers too)
 * `btoa` takes a binary string, so the UTF-8 bytes are turned into one in slices small enough for
 * `String.fromCharCode.apply`.
 */
export function base64Utf8(text: string): string {
  if (NodeBuffer) return NodeBuffer.from(text, 'utf8').toString('base64');
  return base64Portable(text);
}

/** base64Utf8 without `Buffer` (exported for the tests that compare both ways). */
export function base64Portable(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const SLICE = 0x8000;
  let binary = '';
  for (let i = 0; i < bytes.length; i += SLICE) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + SLICE) as unknown as number[]);
  }
  return btoa(binary);
}

/** Base64 to UTF-8 text (used by the CLI and tests to read a reply's patch). */
export function decodeBase64Utf8(encoded: string): string {
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
