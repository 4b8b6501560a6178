/** patchStrategicMerge: anchor pre-processing against the resource, then the schema module's merge. */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { preprocessOverlay } from '../../src/kyverno/patchers/smp-preprocess.js';
import { applyStrategicMerge } from '../../src/kyverno/patchers/strategic.js';

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'a' } },
  spec: {
    containers: [
      { name: 'web', image: 'nginx:1' },
      { name: 'side', image: 'envoy:2', securityContext: { runAsNonRoot: false } },
    ],
  },
};

describe('anchor-free overlays', () => {
  // Overlays without anchors take a shortcut; adding an unrelated +() anchor forces the full walk.
  const cases: [JsonObject, JsonObject][] = [
    [{ metadata: { labels: {} }, spec: { a: [] }, x: [{}, { b: {} }] }, { spec: { a: [] } }],
    [{ metadata: { labels: { team: 'blue' } } }, { metadata: { labels: { team: 'blue' } } }],
    [{ spec: { containers: [{ name: 'web', env: [] }, {}] } }, { spec: { containers: [{ name: 'web', env: [] }] } }],
    [{ a: null, b: { c: null } }, { a: null, b: { c: null } }],
  ];
  for (const [overlay, expected] of cases) {
    it(JSON.stringify(overlay), () => {
      expect(preprocessOverlay(overlay, pod)).toEqual(expected);
      expect(preprocessOverlay({ ...overlay, '+(zz)': 1 }, pod)).toEqual({ ...expected, zz: 1 });
    });
  }
  it('returns the overlay itself when nothing is pruned', () => {
    const overlay = { metadata: { labels: { team: 'blue' } } };
    expect(preprocessOverlay(overlay, pod)).toBe(overlay);
  });
});

describe('strategic merge with anchors', () => {
  const merge = (overlay: JsonValue) => applyStrategicMerge(pod, overlay);
  it('+() adds only what is missing, per container', () => {
    const out = merge({ spec: { containers: [{ '(name)': '*', securityContext: { '+(runAsNonRoot)': true } }] } }).resource as JsonObject;
    expect((out.spec as JsonObject).containers).toEqual([
      { name: 'web', image: 'nginx:1', securityContext: { runAsNonRoot: true } },
      { name: 'side', image: 'envoy:2', securityContext: { runAsNonRoot: false } },
    ]);
  });
  it('a failing condition skips with a reason, leaving the resource as it is', () => {
    const out = merge({ metadata: { '(labels)': { app: 'b' }, annotations: { x: 'y' } } });
    expect(out.resource).toBe(pod);
    expect(out.skipReason).toMatch(/condition failed/);
  });
  it('a failing global condition skips the whole rule', () => {
    const out = merge({ metadata: { annotations: { x: 'y' } }, spec: { containers: [{ '<(image)': 'busybox*' }] } });
    expect(out.resource).toBe(pod);
    expect(out.skipReason).toMatch(/global condition failed/);
  });
  it('conditions use the validate pattern language', () => {
    const out = merge({ spec: { containers: [{ '(image)': 'nginx:*|redis:*', imagePullPolicy: 'Always' }] } }).resource as JsonObject;
    expect(((out.spec as JsonObject).containers as JsonObject[]).map((c) => c.imagePullPolicy)).toEqual(['Always', undefined]);
  });
  it('a condition value is matched as Kyverno matches a pattern tree (durations, metadata wildcard keys)', () => {
    const deployment: JsonObject = {
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { metadata: { labels: { 'app.kubernetes.io/name': 'web' } }, spec: { terminationGracePeriodSeconds: 30 } }, progressDeadline: '90s' },
    };
    const labelled = (overlay: JsonValue) => (applyStrategicMerge(deployment, overlay).resource as JsonObject).metadata;
    // a label key with a wildcard under `metadata` stands for the resource's label it matches
    expect(labelled({ '(spec)': { template: { metadata: { labels: { 'app.kubernetes.io/*': 'web' } } } }, metadata: { labels: { ok: 'y' } } })).toEqual({ name: 'd', labels: { ok: 'y' } });
    // durations compare as durations
    expect(labelled({ '(spec)': { progressDeadline: '<2m' }, metadata: { labels: { ok: 'y' } } })).toEqual({ name: 'd', labels: { ok: 'y' } });
    expect(labelled({ '(spec)': { progressDeadline: '>2m' }, metadata: { labels: { ok: 'y' } } })).toEqual({ name: 'd' });
  });
  it('new list items come first (kustomize prepend)', () => {
    const out = merge({ spec: { containers: [{ name: 'init', image: 'busybox' }] } }).resource as JsonObject;
    expect(((out.spec as JsonObject).containers as JsonObject[]).map((c) => c.name)).toEqual(['init', 'web', 'side']);
  });
});
