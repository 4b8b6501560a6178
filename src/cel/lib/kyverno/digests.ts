import { md5, sha1, sha256 } from '../../../go/index.js';
import { checkBuiltSize } from '../../engine/bounds.js';

/** Hex digests of a string's UTF-8 bytes (the pure-JS digests Kyverno's JMESPath functions use too). */
const encoder = new TextEncoder();

function bytes(s: string): Uint8Array {
  checkBuiltSize(s.length, 'the argument of a hash function');
  return encoder.encode(s);
}

export const sha1Hex = (s: string): string => sha1(bytes(s));
export const sha256Hex = (s: string): string => sha256(bytes(s));
export const md5Hex = (s: string): string => md5(bytes(s));
