/**
 * The text of a policy file's bytes, read as kubectl reads a file (cli-runtime's FileVisitor decodes it
 * through `unicode.BOMOverride`): UTF-8, or UTF-16 when the bytes start with its byte-order mark, as
 * Windows PowerShell 5 writes a redirected `kubectl get -o yaml > policy.yaml`. Without this such a file
 * would read as NUL-laced text and be refused ("document is not an object"). Core: Web APIs only.
 *
 * Bytes that are not UTF-8 (a file saved as Latin-1) are refused, as go-yaml refuses them ("invalid leading
 * UTF-8 octet"): decoded, they would become U+FFFD, which parses, and a label value `caf\uFFFD` would be
 * patched into every object the policy matches (the API server refusing them all).
 */
import { utf8SequenceLength } from '../go/index.js';

export class NotUtf8Error extends Error {
  override name = 'NotUtf8Error';
  constructor(readonly offset: number) {
    super(`not valid UTF-8 at byte ${offset} (0x${offset.toString(16)}): save the file as UTF-8`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Throws NotUtf8Error for bytes that are not UTF-8 (and carry no UTF-16 byte-order mark). */
export function decodeDocumentBytes(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  try {
    return utf8.decode(bytes);
  } catch {
    throw new NotUtf8Error(firstInvalidUtf8(bytes));
  }
}

/** The offset of the first byte that starts no valid UTF-8 sequence (the decoder said there is one). */
function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const n = utf8SequenceLength(b, i);
    if (n === 0) return i;
    i += n;
  }
  return b.length;
}
