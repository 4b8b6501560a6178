/**
 * `serviceAccountName` / `serviceAccountNamespace` as Kyverno's AddServiceAccount
 * (pkg/engine/context/context.go) sets them for every username: the first 22 bytes
 * (len("system:serviceaccount:")) are dropped unchecked, the rest is split on ":" and the first two parts,
 * when there are two, are the namespace and the name.
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
        mutate: {
          patchStrategicMerge: {
            metadata: { annotations: { 'sa-name': '{{ serviceAccountName }}', 'sa-namespace': '{{ serviceAccountNamespace }}' } },
          },
        },
      },
    ],
  },
});

async function serviceAccount(username: string): Promise<[string, string]> {
  const result = await runKyvernoPolicies([policy], {
    request: podRequest(pod('p', ['c']), { userInfo: { username, groups: ['system:authenticated'] } }),
  });
  const annotations = ((result.object as JsonObject).metadata as JsonObject).annotations as JsonObject;
  return [annotations['sa-namespace'] as string, annotations['sa-name'] as string];
}

describe('serviceAccountName / serviceAccountNamespace', () => {
  const cases: [string, [string, string]][] = [
    ['system:serviceaccount:kube-system:replicaset-controller', ['kube-system', 'replicaset-controller']],
    // no check of the prefix: any username longer than 22 bytes is cut the same way
    ['arn:aws:sts::111122223333:assumed-role/admin/alice', ['333', 'assumed-role/admin/alice']],
    ['system:serviceaccounts:ns:name:extra', ['', 'ns']], // the 22 bytes end at the "s": ":ns:name:extra" is left
    ['oidc:https://issuer.example.com:alice@example.com', ['ample.com', 'alice@example.com']],
    // more than two parts: the first two
    ['system:serviceaccount:ns:name:extra', ['ns', 'name']],
    // one part, or 22 bytes or fewer: both empty
    ['system:serviceaccount:ns', ['', '']],
    ['system:serviceaccount:', ['', '']],
    ['alice', ['', '']],
    ['', ['', '']],
    // empty parts are kept as they are
    ['system:serviceaccount::name', ['', 'name']],
    ['system:serviceaccount:ns:', ['ns', '']],
    // bytes, not UTF-16 units: "é" is 2 bytes, so after "a" the 22nd byte is the first half of the 11th
    // "é"; the lone byte left is U+FFFD once Kyverno's context marshals it to JSON
    [`a${'é'.repeat(21)}:x`, [`\uFFFD${'é'.repeat(10)}`, 'x']],
    [`${'é'.repeat(11)}\uFEFFns:x`, ['\uFEFFns', 'x']], // a byte order mark is data
  ];
  for (const [username, expected] of cases) {
    it(`${JSON.stringify(username)} → namespace ${JSON.stringify(expected[0])}, name ${JSON.stringify(expected[1])}`, async () => {
      expect(await serviceAccount(username)).toEqual(expected);
    });
  }
});

/**
 * An ASCII username is cut from the string itself (its code units are its UTF-8 bytes), any other from its
 * UTF-8 bytes: both must agree with Kyverno's byte-wise AddServiceAccount, written out here over bytes, for
 * usernames made of ASCII, two- and three-byte characters, surrogate pairs, lone surrogates and colons
 * around the 22-byte cut.
 */
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
    for (const username of usernames) expect([username, await serviceAccount(username)]).toEqual([username, expected(username)]);
  });
});
