/**
 * Anchor pre-processing renames and removes keys of the overlay's maps: the keys that stay keep their
 * order (it decides the order of new fields in the merged object), renamed keys meeting other keys keep the
 * first one's place and the last one's value, and a renamed key that reads as an anchor again is handled
 * as the key-by-key edits handle it.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { preprocessOverlay } from '../../src/kyverno/patchers/smp-preprocess.js';

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
    ['+() meeting a plain key after it', { metadata: { labels: { z: '0', '+(k)': 'x', k: 'y' } } }, '{"metadata":{"labels":{"z":"0","k":"y"}}}'],
    ['+() meeting a plain key before it', { metadata: { labels: { k: 'y', '+(k)': 'x' } } }, '{"metadata":{"labels":{"k":"x"}}}'],
    ['+() whose key reads as +() again', { metadata: { labels: { '+(+(k))': 1, '+(k)': 2, z: 3 } } }, '{"metadata":{"labels":{"k":2,"z":3}}}'],
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

describe('anchor keys', () => {
  it('are parsed as anchor.Parse does: a newline in the key makes it a plain key (RE2 `.`)', async () => {
    const { parseAnchor } = await import('../../src/kyverno/patchers/anchors.js');
    expect(parseAnchor('(a\nb)')).toBeUndefined();
    expect(parseAnchor('(a\u2028b)')).toEqual({ type: 'condition', key: 'a\u2028b' });
    expect(parseAnchor(' +(x) ')).toEqual({ type: 'addIfNotPresent', key: 'x' });
    expect(parseAnchor('()')).toBeUndefined();
  });
});
