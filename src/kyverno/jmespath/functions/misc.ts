/** semver_compare, random, image_normalize and is_external_url. */
import { isReviewAborted } from '../../../guard/index.js';
import { FunctionError, kyvernoError } from '../errors.js';
import { imageInfo, imageString } from '../../go/image.js';
import type { FunctionDef } from '../registry.js';
import { parseRange, parseVersion, randomFromPattern, strconvQuote, ZERO_VERSION, type Version } from '../../../go/index.js';
import { x509Decode } from '../../../go/index.js';

const S = { types: ['string' as const] };

const PRIVATE_V4: [number, number][] = [
  [0x0a000000, 8], // 10/8
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local
  [0x00000000, 8], // "this network" / unspecified
  [0x64400000, 10], // carrier-grade NAT 100.64/10
  [0xe0000000, 4], // multicast
];

function ipv4Internal(host: string): boolean | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return undefined;
  const n = ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
  return PRIVATE_V4.some(([net, bits]) => n >>> (32 - bits) === net >>> (32 - bits));
}

function ipv6Internal(host: string): boolean | undefined {
  if (!host.startsWith('[') || !host.endsWith(']')) return undefined;
  const h = host.slice(1, -1).toLowerCase();
  if (h === '::1' || h === '::') return true;
  if (/^f[cd]/.test(h) || /^fe[89ab]/.test(h) || /^ff/.test(h)) return true; // ULA, link-local, multicast
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (mapped) return ipv4Internal(mapped[1]);
  return false;
}

const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.svc', '.cluster.local', '.svc.cluster.local', '.home.arpa'];

/**
 * Kyverno resolves the host with DNS and reports whether every address is public. A serverless engine
 * must stay deterministic and may have no resolver, so this is a syntactic check: IP literals are
 * classified exactly; names are internal when they are single-label (a Service name), `localhost`, or
 * end in a cluster/private suffix; any other name counts as external.
 */
export function isExternalUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FunctionError('is_external_url', `JMESPath function 'is_external_url': parse ${strconvQuote(raw)}: invalid URL`);
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === '') return false;
  const v4 = ipv4Internal(host);
  if (v4 !== undefined) return !v4;
  const v6 = ipv6Internal(host);
  if (v6 !== undefined) return !v6;
  if (host === 'localhost' || !host.includes('.')) return false;
  return !INTERNAL_SUFFIXES.some((s) => host.endsWith(s));
}

export const miscFunctions: FunctionDef[] = [
  {
    name: 'semver_compare',
    args: [S, S],
    returns: ['boolean'],
    note: 'compares two strings which comply with the semantic versioning schema and outputs a boolean response as to the position of the second relative to the first',
    call: ([v, r]) => {
      let version: Version;
      try {
        version = parseVersion(v as string);
      } catch {
        version = ZERO_VERSION; // Kyverno ignores the version's parse error
      }
      try {
        return parseRange(r as string)(version);
      } catch (e) {
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
