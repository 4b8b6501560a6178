/** Kyverno's encoding functions: base64, parse_json, parse_yaml (YAML 1.1 like sigs.k8s.io/yaml), hashes. */
import type { JsonValue } from '../../../json/index.js';
import { FunctionError } from '../errors.js';
import { B64_INDEX, base64, md5, parseYaml11, sha1, sha256 } from '../../../go/index.js';
import type { FunctionDef } from '../registry.js';

const S = { types: ['string' as const] };
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** encoding/base64 StdEncoding.DecodeString: padding required, \r and \n ignored. */
export function base64Decode(text: string): Uint8Array {
  const out: number[] = [];
  const quad: number[] = [];
  let padded = 0;
  const fail = (at: number) => {
    throw new Error(`illegal base64 data at input byte ${at}`);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\r' || c === '\n') continue;
    if (padded > 0) {
      if (c !== '=' || quad.length + padded >= 4) fail(i);
      padded++;
      continue;
    }
    if (c === '=') {
      if (quad.length < 2) fail(i);
      padded = 1;
      continue;
    }
    const v = B64_INDEX.get(c);
    if (v === undefined) fail(i);
    quad.push(v!);
    if (quad.length === 4) {
      const n = (quad[0] << 18) | (quad[1] << 12) | (quad[2] << 6) | quad[3];
      out.push((n >> 16) & 255, (n >> 8) & 255, n & 255);
      quad.length = 0;
    }
  }
  if (padded > 0) {
    if (quad.length + padded !== 4) fail(text.length);
    const n = (quad[0] << 18) | (quad[1] << 12) | ((quad[2] ?? 0) << 6);
    out.push((n >> 16) & 255);
    if (quad.length === 3) out.push((n >> 8) & 255);
  } else if (quad.length !== 0) {
    // Go reports the start of the incomplete quantum (padding is required).
    fail(text.replace(/[\r\n]+$/, '').length - quad.length);
  }
  return Uint8Array.from(out);
}

const hashFn = (name: string, f: (b: Uint8Array) => string): FunctionDef => ({
  name,
  args: [S],
  returns: ['string'],
  note: `${name} of the string's UTF-8 bytes, as lowercase hex`,
  call: ([s]) => f(encoder.encode(s as string)),
});

export const encodingFunctions: FunctionDef[] = [
  {
    name: 'base64_decode',
    args: [S],
    returns: ['string'],
    note: 'decodes a base 64 string',
    call: ([s]) => {
      try {
        return decoder.decode(base64Decode(s as string));
      } catch (e) {
        throw new FunctionError('base64_decode', (e as Error).message);
      }
    },
  },
  {
    name: 'base64_encode',
    args: [S],
    returns: ['string'],
    note: 'encodes a regular, plaintext and unencoded string to base64',
    call: ([s], ctx) => {
      const bytes = encoder.encode(s as string);
      ctx.guard.checkSize(Math.ceil(bytes.length / 3) * 4, 'the result of base64_encode()');
      return base64(bytes);
    },
  },
  {
    name: 'parse_json',
    args: [S],
    returns: ['any'],
    note: 'decodes a valid JSON encoded string to the appropriate type. Opposite of `to_string` function',
    call: ([s]) => {
      try {
        return JSON.parse(s as string) as JsonValue;
      } catch (e) {
        throw new FunctionError('parse_json', (e as Error).message);
      }
    },
  },
  {
    name: 'parse_yaml',
    args: [S],
    returns: ['any'],
    note: 'decodes a valid YAML encoded string to the appropriate type provided it can be represented as JSON',
    call: ([s]) => {
      try {
        return parseYaml11(s as string);
      } catch (e) {
        throw new FunctionError('parse_yaml', (e as Error).message);
      }
    },
  },
  hashFn('sha256', sha256),
  hashFn('sha1', sha1),
  hashFn('md5', md5),
];
