/**
 * serviceAccountName / serviceAccountNamespace of an ASCII username are cut from the string itself (its
 * code units are its UTF-8 bytes), of any other from its UTF-8 bytes: both must agree with Kyverno's
 * byte-wise AddServiceAccount, written out here over bytes, for usernames made of ASCII, two- and
 * three-byte characters, surrogate pairs, lone surrogates and colons around the 22-byte cut.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { compiled, pod, podRequest } from './helpers/requests.js';

const policy = compiled({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'record-sa' },
  spec: {
    background: false,
    rules: [
      {
        name: 'r',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        mutate: { patchStrategicMerge: { metadata: { annotations: { n: '{{ serviceAccountName }}', ns: '{{ serviceAccountNamespace }}' } } } },
      },
    ],
  },
});

/** Kyverno's AddServiceAccount over UTF-8 bytes (a cut inside a character decodes to U+FFFD). */
function expected(username: string): [string, string] {
  const bytes = new TextEncoder().encode(username);
  if (bytes.length <= 22) return ['', ''];
  const parts: number[][] = [[]];
  for (let i = 22; i < bytes.length; i++) {
    if (bytes[i] === 0x3a) parts.push([]);
    else parts[parts.length - 1].push(bytes[i]);
  }
  if (parts.length < 2) return ['', ''];
  const text = (b: number[]) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array(b));
  return [text(parts[0]), text(parts[1])];
}

async function actual(username: string): Promise<[string, string]> {
  const result = await runKyvernoPolicies([policy], { request: podRequest(pod('p', ['c']), { userInfo: { username } }) });
  const annotations = ((result.object as JsonObject).metadata as JsonObject).annotations as JsonObject;
  return [annotations.ns as string, annotations.n as string];
}

describe('service account parts: the ASCII path and the byte path agree', () => {
  const pieces = ['a', ':', 'é', '€', '😀', '\uD800', '\uDC00', '\x7f', '\x80', 'system:serviceaccount:'];
  const usernames = new Set<string>(['system:serviceaccount:kube-system:replicaset-controller', `${'x'.repeat(22)}:a`, `${'x'.repeat(21)}:a:b`, `${'x'.repeat(23)}`]);
  // A fixed pseudo-random sequence of usernames mixing the pieces around the 22-byte cut.
  let seed = 7;
  for (let n = 0; n < 200; n++) {
    let u = 'system:serviceaccount'.slice(0, n % 22);
    const len = 2 + (n % 9);
    for (let k = 0; k < len; k++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      u += pieces[seed % pieces.length];
    }
    usernames.add(u);
  }
  it('every username gives Kyverno’s parts', async () => {
    for (const username of usernames) expect([username, await actual(username)]).toEqual([username, expected(username)]);
  });
});
