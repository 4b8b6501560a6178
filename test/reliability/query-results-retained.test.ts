/**
 * What a review measures is remembered for the rest of the review (src/kyverno/measure.ts), but must not
 * be kept alive by that memo: a foreach whose every element queries a new list as long as the one it runs
 * over (`containers[].name` per container) builds n lists of n items, garbage once read. Held by the
 * memo, 3,000 containers took more than 64 MB of heap (the process died out of memory: a Lambda or a
 * Worker isolate dies with it); forgotten with them, the review needs a few MB. Run through the built CLI,
 * the same engine as the server, under a small heap.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ROOT, ensureBuilt } from '../node/built.js';

const CONTAINERS = 3000;

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: named-containers
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
  - name: checked
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        preconditions:
          all:
          - key: "{{ element.name }}"
            operator: AnyIn
            value: "{{ request.object.spec.containers[].name }}"
        patchesJson6902: |-
          - op: add
            path: /metadata/annotations
            value: {checked: "yes"}
`;

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'amender-retained-'));
  const containers = Array.from({ length: CONTAINERS }, (_, i) => ({ name: `c${i}`, image: `registry.example.com/c${i}:1` }));
  writeFileSync(join(dir, 'pod.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers } }));
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('values a review measured are not kept alive by its size memo', () => {
  it(`a foreach over ${CONTAINERS} containers querying the whole list per element runs in a 64 MB heap`, () => {
    const run = spawnSync(process.execPath, ['--max-old-space-size=64', CLI_BIN, 'apply', '--policies', join(dir, 'policy.yaml'), '--resource', join(dir, 'pod.json'), '--patch'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.signal, run.stderr.slice(0, 400)).toBeNull();
    expect(run.status, run.stderr.slice(0, 400)).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ op: 'add', path: '/metadata/annotations', value: { checked: 'yes' } }]);
  });
});
