/**
 * Anchor pre-processing renames and removes keys of the overlay's maps. Kyverno walks each map's keys in
 * Go's string order (ProcessStrategicMergePatch json.Marshals the overlay, a Go map, before kyaml parses
 * it), and kyaml keeps a key renamed onto another one as a second key of the same name, the first of which
 * (RNode.Field) is what later steps and the merge read: so of keys that meet, the one first in Go's order
 * keeps its value, and a renamed key that reads as an anchor again is edited in its turn. The keys that stay
 * keep the order they were written in (cosmetic: Kyverno's result is a Go map).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { preprocessOverlay } from '../../src/kyverno/patchers/smp-preprocess.js';
import { clusterPolicy, compiled, podRequest } from './helpers/requests.js';

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'a' } },
  spec: {
    containers: [
      { name: 'web', image: 'nginx:1', securityContext: { runAsNonRoot: false } },
      { name: 'side', image: 'envoy:2' },
    ],
  },
};

/** The pre-processed overlay as text: key order included. */
const text = (overlay: JsonObject) => JSON.stringify(preprocessOverlay(overlay, pod));

describe('anchor pre-processing keeps key order', () => {
  const cases: [string, JsonObject, string][] = [
    ['+() renamed in place', { metadata: { labels: { a: '1', '+(team)': 'x', z: '2' } } }, '{"metadata":{"labels":{"a":"1","team":"x","z":"2"}}}'],
    ['+() removed where the resource has the key', { metadata: { labels: { b: '0', '+(app)': 'x', c: '1' } } }, '{"metadata":{"labels":{"b":"0","c":"1"}}}'],
    // "+(k)" sorts before "k": the renamed key is kyaml's first "k", and its value is the one read
    ['+() meeting a plain key after it', { metadata: { labels: { z: '0', '+(k)': 'x', k: 'y' } } }, '{"metadata":{"labels":{"z":"0","k":"x"}}}'],
    ['+() meeting a plain key before it', { metadata: { labels: { k: 'y', '+(k)': 'x' } } }, '{"metadata":{"labels":{"k":"x"}}}'],
    // "!k" sorts before "+(!k)": the plain key is the first, whatever the written order
    ['+() meeting a plain key that sorts first', { metadata: { labels: { '+(!k)': 'x', '!k': 'y' } } }, '{"metadata":{"labels":{"!k":"y"}}}'],
    // "+(+(k))" is renamed to a second "+(k)" (first in Go's order); the "+(k)" anchor then renames that
    // first one to "k", and the written "+(k)" stays, a plain key the merge adds as it is
    ['+() whose key reads as +() again', { metadata: { labels: { '+(+(k))': 1, '+(k)': 2, z: 3 } } }, '{"metadata":{"labels":{"k":1,"+(k)":2,"z":3}}}'],
    ['+() at the top level', { '+(zz)': 1, metadata: { labels: { q: '1' } }, '+(kind)': 'X' }, '{"zz":1,"metadata":{"labels":{"q":"1"}}}'],
    [
      'a list item: conditions unwrapped in order, +() inside a condition',
      { spec: { containers: [{ '(name)': 'web', '(securityContext)': { '+(runAsNonRoot)': true, '+(runAsUser)': 1000 }, x: 1 }] } },
      '{"spec":{"containers":[{"securityContext":{"runAsUser":1000},"x":1,"name":"web"}]}}',
    ],
    [
      'a list item: +() beside a wildcard condition, for each container',
      { spec: { containers: [{ '(name)': '*', securityContext: { '+(runAsNonRoot)': true, a: 1, '+(seccompProfile)': { type: 'RuntimeDefault' } } }] } },
      '{"spec":{"containers":[{"securityContext":{"a":1,"seccompProfile":{"type":"RuntimeDefault"}},"name":"web"},{"securityContext":{"runAsNonRoot":true,"a":1,"seccompProfile":{"type":"RuntimeDefault"}},"name":"side"}]}}',
    ],
  ];
  for (const [name, overlay, expected] of cases) {
    it(name, () => {
      expect(text(overlay)).toBe(expected);
    });
  }
});

describe('the order Kyverno walks an overlay in', () => {
  // A container item written securityContext first: Kyverno walks `resources` first (Go's order), whose
  // `(limits)` condition fails (ConditionError: this item is skipped), before `securityContext`'s global
  // `<(privileged)` would have failed the whole overlay. So the rest of the overlay (the label) applies.
  const policy = compiled(
    clusterPolicy('key-order', [
      {
        name: 'r',
        mutate: {
          patchStrategicMerge: {
            metadata: { labels: { touched: 'yes' } },
            spec: {
              containers: [{ securityContext: { '<(privileged)': true }, resources: { '(limits)': { cpu: '1' } }, imagePullPolicy: 'Always' }],
            },
          },
        },
      },
    ]),
  );

  it('is Go’s string order, not the written one: a condition failure met first skips only its list item', async () => {
    const subject: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'a', image: 'nginx' }] } };
    const result = await runKyvernoPolicies([policy], { request: podRequest(subject) });
    expect(result.policies[0].status).toBe('applied');
    const object = result.object as JsonObject;
    expect((object.metadata as JsonObject).labels).toEqual({ touched: 'yes' });
    expect((object.spec as JsonObject).containers).toEqual([{ name: 'a', image: 'nginx' }]);
  });

  it('the global condition still decides when the item’s conditions hold', async () => {
    // `resources.limits` present: the walk reaches securityContext, whose <(privileged) fails: rule skipped
    const subject: JsonObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'a', image: 'nginx', resources: { limits: { cpu: '1' } } }] },
    };
    const result = await runKyvernoPolicies([policy], { request: podRequest(subject) });
    expect(result.changed).toBe(false);
    expect(result.policies[0].rules[0].status).toBe('skipped');
  });
});

describe('anchor keys', () => {
  it('are parsed as anchor.Parse does: a newline in the key makes it a plain key (RE2 `.`)', async () => {
    const { parseAnchor } = await import('../../src/kyverno/patchers/anchors.js');
    expect(parseAnchor('(a\nb)')).toBeUndefined();
    expect(parseAnchor('(a\u2028b)')).toEqual({ type: 'condition', key: 'a\u2028b' });
    expect(parseAnchor(' +(x) ')).toEqual({ type: 'addIfNotPresent', key: 'x' });
    expect(parseAnchor('()')).toBeUndefined();
  });
});
