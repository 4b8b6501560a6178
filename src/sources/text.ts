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
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    const more = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (more === 0 || i + more >= b.length) return i;
    for (let k = 1; k <= more; k++) if ((b[i + k] & 0xc0) !== 0x80) return i;
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF.
    const next = b[i + 1];
    if ((c === 0xe0 && next < 0xa0) || (c === 0xed && next > 0x9f) || (c === 0xf0 && next < 0x90) || (c === 0xf4 && next > 0x8f)) return i;
    i += more + 1;
  }
  return b.length;
}
