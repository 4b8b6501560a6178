/** Kyverno's encoding functions: base64, parse_json, parse_yaml (YAML 1.1 like sigs.k8s.io/yaml), hashes. */
import { isReviewAborted } from '../../../guard/index.js';
import { FunctionError } from '../errors.js';
import { decodeGoJson } from '../json-text.js';
import { base64, base64Decode, md5, parseYaml11FirstDocument, sha1, sha256 } from '../../../go/index.js';
import type { FunctionDef } from '../registry.js';
import { goStringBytes, goStringFromBytes } from '../go-bytes.js';

const S = { types: ['string' as const] };

const hashFn = (name: string, f: (b: Uint8Array) => string): FunctionDef => ({
  name,
  args: [S],
  returns: ['string'],
  note: `${name} of the string's UTF-8 bytes, as lowercase hex`,
  call: ([s]) => f(goStringBytes(s as string)),
});

export const encodingFunctions: FunctionDef[] = [
  {
    name: 'base64_decode',
    args: [S],
    returns: ['string'],
    note: 'decodes a base 64 string',
    call: ([s]) => {
      try {
        // The bytes as Go keeps them (./go-bytes.ts), not U+FFFD for what is not UTF-8.
        return goStringFromBytes(base64Decode(s as string));
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
      const bytes = goStringBytes(s as string);
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
        return decodeGoJson(s as string);
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
    // yaml.YAMLToJSON (sigs.k8s.io/yaml) decodes with go-yaml v2's Unmarshal: the first document of a
    // stream, the others neither decoded nor checked.
    call: ([s], ctx) => {
      try {
        // The review's guard can stop a long parse (a few MB of review text take seconds).
        return parseYaml11FirstDocument(s as string, ctx.guard);
      } catch (e) {
        if (isReviewAborted(e)) throw e;
        throw new FunctionError('parse_yaml', (e as Error).message);
      }
    },
  },
  hashFn('sha256', sha256),
  hashFn('sha1', sha1),
  hashFn('md5', md5),
];
