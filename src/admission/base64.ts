interface NodeBufferInstance {
  write(text: string, offset: number, encoding: 'utf8'): number;
  toString(encoding: 'base64', start: number, end: number): string;
}

/** Node's Buffer when the platform has one (Node, workerd with nodejs_compat); the core does not need it. */
const NodeBuffer = (
  globalThis as {
    Buffer?: { from(text: string, encoding: 'utf8'): { toString(encoding: 'base64'): string }; allocUnsafeSlow?(size: number): NodeBufferInstance };
  }
).Buffer;

/** Bytes of the buffer a short text is encoded in, reused from call to call. */
const SCRATCH_BYTES = 16 * 1024;
let scratch: NodeBufferInstance | undefined;

/**
 * UTF-8 text to base64. With `Buffer` in native calls (every reply with a patch pays this; Node's `btoa` is
 * written in JavaScript and walks the text twice): a text that surely fits (a UTF-16 unit is at most three
 * UTF-8 bytes) is written into one reused buffer, which spares `Buffer.from` its allocation (a third of
 * its cost for a reply patch of a few hundred bytes). Without `Buffer` (the core runs on Workers too)
 * `btoa` takes a binary string, so the UTF-8 bytes are turned into one in slices small enough for
 * `String.fromCharCode.apply`.
 */
export function base64Utf8(text: string): string {
  if (!NodeBuffer) return base64Portable(text);
  if (text.length <= SCRATCH_BYTES / 3 && NodeBuffer.allocUnsafeSlow) {
    scratch ??= NodeBuffer.allocUnsafeSlow(SCRATCH_BYTES);
    return scratch.toString('base64', 0, scratch.write(text, 0, 'utf8'));
  }
  return NodeBuffer.from(text, 'utf8').toString('base64');
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
