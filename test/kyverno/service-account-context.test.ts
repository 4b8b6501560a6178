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
