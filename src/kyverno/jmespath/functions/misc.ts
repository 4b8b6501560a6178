/** semver_compare, random, image_normalize and is_external_url. */
import { isReviewAborted } from '../../../guard/index.js';
import { FunctionError, kyvernoError } from '../errors.js';
import { imageInfo, imageString } from '../../go/image.js';
import type { FunctionDef } from '../registry.js';
import { parseRange, parseVersion, randomFromPattern, ZERO_VERSION, type Version } from '../../../go/index.js';
import { x509Decode } from '../../../go/index.js';
import { isExternalUrl } from './external-url.js';

const S = { types: ['string' as const] };

export const miscFunctions: FunctionDef[] = [
  {
    name: 'semver_compare',
    args: [S, S],
    returns: ['boolean'],
    note: 'compares two strings which comply with the semantic versioning schema and outputs a boolean response as to the position of the second relative to the first',
    call: ([v, r], ctx) => {
      let version: Version;
      try {
        version = parseVersion(v as string);
      } catch {
        version = ZERO_VERSION; // Kyverno ignores the version's parse error
      }
      try {
        return parseRange(r as string, ctx.guard)(version);
      } catch (e) {
        if (isReviewAborted(e)) throw e;
        throw new FunctionError('semver_compare', (e as Error).message);
      }
    },
  },
  {
    name: 'random',
    args: [S],
    returns: ['string'],
    note: 'Generates a random sequence of characters',
    call: ([pattern], ctx) => {
      if (pattern === '') throw new FunctionError('random', 'no pattern provided');
      try {
        return randomFromPattern(pattern as string, ctx.random, ctx.guard);
      } catch (e) {
        if (isReviewAborted(e)) throw e;
        throw new FunctionError('random', (e as Error).message);
      }
    },
  },
  {
    name: 'image_normalize',
    args: [S],
    returns: ['string'],
    note: 'normalizes an image reference',
    call: ([image], ctx) => {
      try {
        return imageString(imageInfo(image as string, ctx.images));
      } catch (e) {
        throw kyvernoError.generic('image_normalize', (e as Error).message);
      }
    },
  },
  {
    name: 'x509_decode',
    args: [S],
    returns: ['object'],
    note: 'decodes an x.509 certificate to an object. you may also use this in conjunction with `base64_decode` jmespath function to decode a base64-encoded certificate',
    call: ([pem]) => {
      try {
        return x509Decode(pem as string);
      } catch (e) {
        throw new FunctionError('x509_decode', (e as Error).message);
      }
    },
  },
  {
    name: 'is_external_url',
    args: [S],
    returns: ['boolean'],
    note: 'whether a URL points outside the cluster (syntactic check of the host; no DNS lookup)',
    call: ([u]) => isExternalUrl(u as string),
  },
];
