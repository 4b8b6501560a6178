/**
 * The text of a policy file's bytes, read as kubectl reads a file (cli-runtime's FileVisitor decodes it
 * through `unicode.BOMOverride`): UTF-8, or UTF-16 when the bytes start with its byte-order mark, as
 * Windows PowerShell 5 writes a redirected `kubectl get -o yaml > policy.yaml`. Without this such a file
 * would read as NUL-laced text and be refused ("document is not an object"). Bytes that are not UTF-8
 * become U+FFFD, as before; the YAML or JSON parser then says where. Core: Web APIs only.
 */
export function decodeDocumentBytes(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return new TextDecoder('utf-8').decode(bytes);
}
