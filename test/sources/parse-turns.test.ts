/**
 * A large policy file does not hold the event loop while it is parsed: on the Node server the thread that
 * loads a set also answers probes and reviews, and a 1 MiB file of 100,000 tiny documents took the YAML
 * parser 2 s or more in one go (a /healthz stalled 2.9 s during a 22 MB load of CRDs). The refresher
 * parses a slice of lexemes at a time and lets the event loop turn in between. Counted, not timed: the
 * turns a setImmediate ticker gets while one refresh runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PolicySetRefresher, type FetchResult, type PolicySource, type SourceEntry } from '../../src/sources/index.js';
import { eventLoopTicker } from './event-loop-ticker.js';
import { labelPolicy } from './helpers.js';

/** A source of one file: a policy and `n` tiny param documents (9 lexemes each). */
function oneFile(n: number): PolicySource {
  const text = labelPolicy('a', 'team', 'one') + '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' + '---\na: 1\n'.repeat(n);
  return {
    uri: 'memory://big',
    list: async (): Promise<SourceEntry[]> => [{ name: 'big.yaml', label: 'big.yaml', version: 'v1' }],
    fetch: async (): Promise<FetchResult> => ({ status: 'fetched', version: 'v1', text }),
  };
}

let stopTicker: (() => void) | undefined;
afterEach(() => stopTicker?.());

describe('a large file parsed by the refresher', () => {
  it('lets the event loop turn between slices of its parse', async () => {
    // 20,000 documents: 180,000 lexemes, 43 slices of 4,096.
    const r = new PolicySetRefresher({ name: 'big', sources: [oneFile(20_000)], intervalMs: 0 });
    const t = eventLoopTicker();
    stopTicker = t.stop;
    const result = await r.refresh();
    t.stop();
    expect(result.errors).toEqual([]);
    expect(result.outcome).toBe('applied');
    expect(r.provider().set?.counts.mutatingAdmissionPolicies).toBe(1);
    // Before: the file was parsed in one go, and the ticker got no turn during it (2 turns in all).
    expect(t.turns()).toBeGreaterThanOrEqual(40);
  });
});

describe('a large file parsed by a refresh that is aborted', () => {
  it('stops parsing at the next slice', async () => {
    let fetched = false;
    const source = oneFile(20_000);
    const fetch = source.fetch.bind(source);
    source.fetch = async (entry, options) => ((fetched = true), fetch(entry, options));
    const r = new PolicySetRefresher({ name: 'big', sources: [source], intervalMs: 0 });
    // The turns the event loop gets once the refresher is stopped, three turns into the parse.
    let sinceStop: number | undefined;
    let parsing = 0;
    let running = true;
    const tick = () => {
      if (!running) return;
      if (sinceStop !== undefined) sinceStop++;
      else if (fetched && ++parsing === 3) {
        r.stop();
        sinceStop = 0;
      }
      setImmediate(tick);
    };
    setImmediate(tick);
    stopTicker = () => void (running = false);
    const result = await r.refresh();
    running = false;
    expect(result.outcome).not.toBe('applied');
    expect(r.provider().set).toBeUndefined();
    // Before: the parse ran on through its remaining ~40 slices, a turn each.
    expect(sinceStop).toBeLessThanOrEqual(3);
  });
});

describe('large files parsed side by side', () => {
  it('take a turn of the event loop each per slice, not all in one turn', async () => {
    // Two files of 20,000 documents, read at once (the refresh reads up to 8 files at a time).
    const files = new Map(['a.yaml', 'b.yaml'].map((name) => [name, oneFile(20_000)]));
    const source: PolicySource = {
      uri: 'memory://two',
      list: async () => [...files.keys()].map((name) => ({ name, label: name, version: 'v1' })),
      fetch: async (entry, options) => {
        const text = ((await files.get(entry.name)!.fetch(entry, options)) as { text: string }).text;
        return { status: 'fetched', version: 'v1', text: entry.name === 'b.yaml' ? text.replaceAll('name: a', 'name: b') : text };
      },
    };
    const r = new PolicySetRefresher({ name: 'two', sources: [source], intervalMs: 0 });
    const t = eventLoopTicker();
    stopTicker = t.stop;
    const result = await r.refresh();
    t.stop();
    expect(result.errors).toEqual([]);
    expect(r.provider().set?.counts.mutatingAdmissionPolicies).toBe(2);
    // 43 slices each: a turn for every slice of both. Before: both files' slices ran in the same turns (43).
    expect(t.turns()).toBeGreaterThanOrEqual(80);
  });
});
