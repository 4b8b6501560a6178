/**
 * The refresher builds a set a slice at a time, the event loop turning in between, as it parses: on the
 * Node server the thread that loads a set also answers probes and reviews, and compiling 3,000
 * MutatingAdmissionPolicies in one go held it 3 s. Counted, not timed: the turns a setImmediate ticker
 * gets while one refresh of a JSON file runs (JSON is parsed at once, so the turns are the build's).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PolicySetRefresher, type FetchResult, type PolicySource, type SourceEntry } from '../../src/sources/index.js';
import { eventLoopTicker } from './event-loop-ticker.js';

/** `n` MutatingAdmissionPolicies and their bindings, as JSON arrays of 500 policies a file. */
function manyPolicies(n: number): PolicySource {
  const docs = Array.from({ length: n }, (_, i) => [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: `p${i}` },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
        matchConditions: [{ name: 'c', expression: `has(object.metadata.labels) && "t${i}" in object.metadata.labels` }],
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {"s${i}": "yes"}}}` } }],
      },
    },
    { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: `p${i}` }, spec: { policyName: `p${i}` } },
  ]).flat();
  const files = new Map<string, string>();
  for (let i = 0; i < docs.length; i += 1000) files.set(`many-${i}.json`, JSON.stringify(docs.slice(i, i + 1000)));
  return {
    uri: 'memory://many',
    list: async (): Promise<SourceEntry[]> => [...files.keys()].map((name) => ({ name, label: name, version: 'v1' })),
    fetch: async (entry): Promise<FetchResult> => ({ status: 'fetched', version: 'v1', text: files.get(entry.name)! }),
  };
}

let stopTicker: (() => void) | undefined;
afterEach(() => stopTicker?.());

describe('a large set built by the refresher', () => {
  it('lets the event loop turn between slices of its build', async () => {
    const r = new PolicySetRefresher({ name: 'many', sources: [manyPolicies(1500)], intervalMs: 0 });
    const ticker = eventLoopTicker();
    stopTicker = ticker.stop;
    const result = await r.refresh();
    ticker.stop();
    const turns = ticker.turns();
    expect(result.outcome).toBe('applied');
    expect(r.provider().set?.problems.slice(0, 2)).toEqual([]);
    expect(r.provider().set?.counts.mutatingAdmissionPolicies).toBe(1500);
    // Before: the 1,500 policies were compiled in one go (some 0.5-1.5 s), the ticker getting no turn.
    expect(turns).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it('stops building when the refresher is stopped, and applies nothing', async () => {
    const r = new PolicySetRefresher({ name: 'many', sources: [manyPolicies(1500)], intervalMs: 0 });
    let fetched = false;
    let after = 0;
    let running = true;
    const tick = () => {
      if (!running) return;
      if (fetched && ++after === 5) r.stop();
      setImmediate(tick);
    };
    const source = (r as unknown as { sources: PolicySource[] }).sources[0];
    const fetch = source.fetch.bind(source);
    source.fetch = async (entry, options) => ((fetched = true), fetch(entry, options));
    setImmediate(tick);
    stopTicker = () => void (running = false);
    // A clock on which each reading is 5 ms later: the build takes many slices whatever the machine. On the
    // real one, late in a full run (the JIT warm, the CEL programs cached by the test above) the whole build
    // fit in fewer than 5 slices, and the set was applied before the ticker stopped the refresher.
    const realNow = performance.now.bind(performance);
    let later = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => realNow() + (later += 5));
    let result;
    try {
      result = await r.refresh();
    } finally {
      clock.mockRestore();
    }
    running = false;
    expect(result.outcome).toBe('failed');
    expect(r.provider().set).toBeUndefined();
  }, 60_000);
});
