/**
 * The refresher's own rules, over a scripted in-memory source (the real sources have their own tests):
 * one refresh at a time, bounded in time and size, refreshIfDue for Lambda/Workers, the timer of
 * start()/stop(), logs. And the URI parsing and resolution that pick a source.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { LogRecord } from '../../src/server/index.js';
import {
  parseSourceUri,
  PolicySetRefresher,
  resolveSources,
  workerSourceResolvers,
  type FetchResult,
  type PolicySource,
  type SourceEntry,
} from '../../src/sources/index.js';
import { nodeSourceResolvers } from '../../src/sources/node/index.js';
import { CORRUPT_YAML, labelPolicy } from './helpers.js';

/** An in-memory store; `hold` makes listings wait until released. */
class MemorySource implements PolicySource {
  readonly uri = 'memory://test';
  readonly docs = new Map<string, { text: string; version: number }>();
  lists = 0;
  fetches = 0;
  hold: Promise<void> | undefined;
  failWith: Error | undefined;
  /** Runs once, right after the next listing was taken (a change landing while it is read). */
  afterList: (() => void) | undefined;
  put(name: string, text: string): void {
    this.docs.set(name, { text, version: (this.docs.get(name)?.version ?? 0) + 1 });
  }
  async list(): Promise<SourceEntry[]> {
    this.lists++;
    if (this.hold) await this.hold;
    if (this.failWith) throw this.failWith;
    const entries = [...this.docs].map(([name, d]) => ({ name, label: `memory://${name}`, version: String(d.version) }));
    const after = this.afterList;
    this.afterList = undefined;
    after?.();
    return entries;
  }
  async fetch(entry: SourceEntry, options: { ifNoneMatch?: string }): Promise<FetchResult> {
    this.fetches++;
    const d = this.docs.get(entry.name);
    if (!d) return { status: 'gone' };
    if (options.ifNoneMatch === String(d.version)) return { status: 'not-modified' };
    return { status: 'fetched', version: String(d.version), text: d.text };
  }
}

/** A Kyverno ClusterPolicy labelling Pods with what the context variable's JMESPath gives. */
function kyvernoLabel(name: string, jmesPath: string): string {
  return JSON.stringify({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name },
    spec: {
      rules: [
        {
          name: 'label',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          context: [{ name: 'who', variable: { jmesPath } }],
          mutate: { patchStrategicMerge: { metadata: { labels: { who: '{{ who }}' } } } },
        },
      ],
    },
  });
}

function names(r: PolicySetRefresher): string[] {
  return r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];
}

describe('PolicySetRefresher', () => {
  it('runs one refresh at a time, and once more when asked during one', async () => {
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'team', 'a'));
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0 });
    let release!: () => void;
    source.hold = new Promise((resolve) => (release = resolve));
    const first = r.refresh();
    const second = r.refresh();
    expect(second).toBe(first);
    source.hold = undefined;
    release();
    expect((await first).outcome).toBe('applied');
    await vi.waitFor(() => expect(r.stats().attempts).toBe(2), { timeout: 5_000 });
    expect(source.lists).toBe(3); // the first refresh read something new: listed again to confirm
  });

  it('gives up on a source that does not answer in time, keeping the set', async () => {
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'team', 'a'));
    const r = new PolicySetRefresher({ name: 'slow', sources: [source], intervalMs: 0, limits: { timeoutMs: 50 } });
    await r.refresh();
    source.hold = new Promise(() => {}); // never answers
    const result = await r.refresh();
    expect(result.outcome).toBe('failed');
    expect(result.errors).toEqual(['memory://test: refreshing policy set slow did not finish within 50 ms']);
    expect(names(r)).toEqual(['a']);
  });

  it('keeps few listeners on any one signal while many sources are read at once, so Node never warns of a leak', async () => {
    // Each call adds an abort listener of its own and holds it a moment, as the AWS SDK does per request.
    const seen: number[] = [];
    const listening = <T>(signal: AbortSignal, value: T): Promise<T> => {
      const onAbort = () => {};
      signal.addEventListener('abort', onAbort);
      seen.push(getEventListeners(signal, 'abort').length);
      return new Promise((resolve) => setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve(value)), 2));
    };
    const sources = Array.from({ length: 12 }, (_, s) => {
      const source = new MemorySource();
      for (let d = 0; d < 20; d++) source.put(`s${s}-${d}.yaml`, labelPolicy(`s${s}-${d}`, `k${s}-${d}`, 'v'));
      return {
        uri: `memory://${s}`,
        list: (o: { signal: AbortSignal }) => listening(o.signal, null).then(() => source.list()),
        fetch: (entry: SourceEntry, o: { signal: AbortSignal; ifNoneMatch?: string }) => listening(o.signal, null).then(() => source.fetch(entry, o)),
      } satisfies PolicySource;
    });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const r = new PolicySetRefresher({ name: 'many', sources, intervalMs: 0 });
      const result = await r.refresh();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(result).toMatchObject({ outcome: 'applied', errors: [] });
      expect(names(r)).toHaveLength(240);
      expect(seen.length).toBe(12 * 2 + 240); // a listing, a confirming listing and 20 reads per source
      expect(Math.max(...seen)).toBeLessThanOrEqual(2); // the caller's own listener and the source's
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('aborts a read in progress when the refresh runs out of time', async () => {
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'team', 'a'));
    let aborted: unknown;
    const hanging: PolicySource = {
      uri: 'memory://hanging',
      list: () => source.list(),
      fetch: (_entry, o) => new Promise(() => o.signal.addEventListener('abort', () => (aborted = o.signal.reason))),
    };
    const r = new PolicySetRefresher({ name: 'hung', sources: [hanging], intervalMs: 0, limits: { timeoutMs: 50 } });
    const result = await r.refresh();
    expect(result.errors).toEqual(['memory://hanging: refreshing policy set hung did not finish within 50 ms']);
    expect(String(aborted)).toBe('Error: refreshing policy set hung did not finish within 50 ms');
  });

  it('bounds the total size of a set', async () => {
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'team', 'a'));
    source.put('b.yaml', labelPolicy('b', 'team', 'b'));
    const r = new PolicySetRefresher({ name: 'small', sources: [source], intervalMs: 0, limits: { maxTotalBytes: 1000 } });
    const result = await r.refresh();
    expect(result.outcome).toBe('failed');
    expect(result.errors[0]).toBe('policy set small: its documents hold more than 1000 bytes, the limit; not read further (reading memory://test)');
    expect(r.provider().set).toBeUndefined();
  });

  it('names the source of an unexpected error, and logs failures, problems and new sets', async () => {
    const logs: LogRecord[] = [];
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'team', 'a'));
    source.put('b.yaml', CORRUPT_YAML);
    const r = new PolicySetRefresher({ name: 'cluster-1', sources: [source], intervalMs: 0, logger: (l) => logs.push(l) });
    await r.refresh();
    expect(logs.map((l) => [l.level, l.msg, l.policySet])).toEqual([
      ['warn', 'policy problem', 'cluster-1'],
      ['info', 'policy set applied', 'cluster-1'],
    ]);
    expect(logs[0].source).toBe('memory://b.yaml');
    source.failWith = new TypeError('fetch failed\nmore detail');
    expect((await r.refresh()).errors).toEqual(['memory://test: fetch failed']);
    expect(logs[2]).toMatchObject({ level: 'error', msg: 'policy sources unreadable', policySet: 'cluster-1', errors: ['memory://test: fetch failed'] });
    source.failWith = undefined;
    expect((await r.refresh()).outcome).toBe('unchanged');
    expect(logs[3]).toMatchObject({ level: 'info', msg: 'policy sources readable again' });
  });

  it('refuses a new version that does not compile: the last good one stays in force; a new document is left out', async () => {
    const logs: LogRecord[] = [];
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'team', 'one'));
    source.put('k.yaml', kyvernoLabel('k', 'request.object.metadata.name'));
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, logger: (l) => logs.push(l) });
    await r.refresh();
    expect(r.stats().refusedDocuments).toBe(0);
    const good = r.provider().set!;
    expect(good.kyvernoPolicies).toHaveLength(1);

    // A MAP cut mid-expression, a Kyverno context whose JMESPath does not compile, and a new broken one.
    source.put('a.yaml', labelPolicy('a', 'team', 'two', '[JSONPatch{op: "add", path: "/metadata/lab'));
    source.put('k.yaml', kyvernoLabel('k', 'request.object.metadata.name ||'));
    source.put('new.yaml', labelPolicy('new', 'new', 'x', 'object.metadata.name +'));
    source.put('b.yaml', labelPolicy('b', 'owner', 'ops'));
    expect((await r.refresh()).outcome).toBe('applied');
    const set = r.provider().set!;
    expect(names(r)).toEqual(['a', 'b']);
    expect(JSON.stringify(set.mutatingPolicies[0].policy.mutations)).toContain('one');
    expect(set.kyvernoPolicies.map((k) => k.id)).toEqual(good.kyvernoPolicies.map((k) => k.id));
    const bySource = (source: string) => set.problems.filter((p) => p.source === source);
    for (const p of [...bySource('memory://a.yaml'), ...bySource('memory://k.yaml')]) {
      expect(p.effect).toBe('ignored');
      expect(p.message).toMatch(/\(the last good version of this document stays in force\)$/);
    }
    expect(bySource('memory://a.yaml')).not.toEqual([]);
    expect(bySource('memory://k.yaml')).not.toEqual([]);
    expect(bySource('memory://new.yaml')).toEqual([expect.objectContaining({ name: 'new', path: 'spec.mutations[0].jsonPatch.expression', effect: 'ignored' })]);
    expect(bySource('memory://new.yaml')[0].message).not.toMatch(/last good/);
    expect(r.stats().refusedDocuments).toBe(3);
    expect(logs.filter((l) => l.msg === 'policy problem').length).toBe(set.problems.length);
    expect(logs.at(-1)).toMatchObject({ msg: 'policy set applied', refusedDocuments: 3 });

    // Fixed: the new versions are accepted.
    source.put('a.yaml', labelPolicy('a', 'team', 'three'));
    source.put('k.yaml', kyvernoLabel('k', 'request.object.metadata.namespace'));
    source.docs.delete('new.yaml');
    await r.refresh();
    expect(r.provider().set!.problems).toEqual([]);
    expect(JSON.stringify(r.provider().set!.mutatingPolicies[0].policy.mutations)).toContain('three');
    expect(r.stats().refusedDocuments).toBe(0);
  });

  it('leaves out a new document that reuses a name in force, whatever the order of the files', async () => {
    const source = new MemorySource();
    const configMap = (cpu: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: defaults, namespace: amender-system}\ndata: {cpu: "${cpu}"}\n`;
    source.put('m-policy.yaml', labelPolicy('team', 'team', 'platform'));
    source.put('m-params.yaml', configMap('100m'));
    source.put('m-kyverno.yaml', kyvernoLabel('k', 'request.object.metadata.name'));
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0 });
    await r.refresh();
    const team = () => JSON.stringify(r.provider().set!.mutatingPolicies.map((p) => p.policy.mutations));
    const kyverno = () => JSON.stringify(r.provider().set!.kyvernoPolicies.map((k) => k.rules));
    const cpu = () => JSON.stringify(r.provider().set!.objects.get('', 'ConfigMap', 'amender-system', 'defaults'));
    expect(team()).toContain('platform');
    const before = { kyverno: kyverno(), cpu: cpu() };

    // Copies named to sort before the originals, each defining the same names with other values.
    source.put('a-policy.bak.yaml', labelPolicy('team', 'team', 'EXPERIMENT'));
    source.put('a-params.yaml', configMap('9'));
    source.put('a-kyverno.yaml', kyvernoLabel('k', 'request.object.metadata.namespace'));
    for (let round = 0; round < 2; round++) {
      expect(['applied', 'unchanged']).toContain((await r.refresh()).outcome);
      expect(team()).toContain('platform');
      expect(team()).not.toContain('EXPERIMENT');
      expect({ kyverno: kyverno(), cpu: cpu() }).toEqual(before);
      const problems = r.provider().set!.problems;
      for (const copy of ['a-policy.bak.yaml', 'a-params.yaml', 'a-kyverno.yaml']) {
        expect(problems.filter((p) => p.source === `memory://${copy}`).map((p) => p.message).join('\n')).toMatch(/Duplicate value/);
      }
      expect(problems.filter((p) => p.source.startsWith('memory://m-'))).toEqual([]);
    }

    // The original removed: the copy, now the only one of its name, takes effect.
    source.docs.delete('m-policy.yaml');
    await r.refresh();
    expect(team()).toContain('EXPERIMENT');
  });

  it('never mixes two generations from a listing that straddled an update: it lists again to confirm', async () => {
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'gen-a', 'g1'));
    source.put('b.yaml', labelPolicy('b', 'gen-b', 'g1'));
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0 });
    await r.refresh();
    // Generation 2 lands while the listing is taken: it shows b new but a still old (held: not fetched).
    source.put('b.yaml', labelPolicy('b', 'gen-b', 'g2'));
    source.afterList = () => source.put('a.yaml', labelPolicy('a', 'gen-a', 'g2'));
    source.lists = 0;
    expect((await r.refresh()).outcome).toBe('applied');
    expect(source.lists).toBe(4); // the straddled listing and its failed confirmation, then one generation listed and confirmed
    const mutations = r.provider().set!.mutatingPolicies.map((p) => JSON.stringify(p.policy.mutations));
    expect(mutations[0]).toContain('g2');
    expect(mutations[1]).toContain('g2');
  });

  it('refreshes when due (Lambda, Workers): not before the interval has passed', async () => {
    let now = 1_000_000;
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'team', 'a'));
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 60_000, now: () => new Date(now) });
    expect((await r.refreshIfDue())?.outcome).toBe('applied');
    now += 59_999;
    expect(r.refreshIfDue()).toBeUndefined();
    now += 1;
    expect((await r.refreshIfDue())?.outcome).toBe('unchanged');
    expect(source.lists).toBe(3); // 2 for the first load (listed again to confirm), 1 when unchanged
  });

  it('repeats refreshes on its timer until stopped', async () => {
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'team', 'a'));
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 10 });
    await r.refresh();
    r.start();
    source.put('b.yaml', labelPolicy('b', 'team', 'b'));
    await vi.waitFor(() => expect(names(r)).toEqual(['a', 'b']), { timeout: 5_000 });
    r.stop();
    const lists = source.lists;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(source.lists).toBe(lists);
    expect(() => r.start()).toThrow(/stopped/);
  });

  it.each([60_000, 0])('tries a set that never loaded again soon after a failure, not a whole interval later (interval %i ms); once loaded, at the interval', async (intervalMs) => {
    const source = new MemorySource();
    source.put('a.yaml', labelPolicy('a', 'team', 'a'));
    source.failWith = new Error('store briefly down');
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs });
    expect((await r.refresh()).outcome).toBe('failed');
    r.start();
    try {
      source.failWith = undefined;
      // The first retry comes after 1 s (then 2, 4...): every review of the set is refused until it loads.
      await vi.waitFor(() => expect(names(r)).toEqual(['a']), { timeout: 5_000, interval: 50 });
      // Loaded: a failing store is read again at the interval only; the set in force stays.
      source.failWith = new Error('down again');
      const lists = source.lists;
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(source.lists).toBe(lists);
      expect(names(r)).toEqual(['a']);
    } finally {
      r.stop();
    }
  });

  it('needs at least one source', () => {
    expect(() => new PolicySetRefresher({ name: 'none', sources: [] })).toThrow('policy set none: no source configured');
  });
});

describe('source URIs', () => {
  it('parses each kind', () => {
    expect(parseSourceUri('bundled')).toEqual({ kind: 'bundled', uri: 'bundled' });
    expect(parseSourceUri('file:///etc/amender')).toEqual({ kind: 'directory', uri: 'file:///etc/amender', path: '/etc/amender' });
    expect(parseSourceUri('./policies')).toEqual({ kind: 'directory', uri: './policies', path: './policies' });
    expect(parseSourceUri('s3://my-bucket/clusters/prod')).toEqual({ kind: 's3', uri: 's3://my-bucket/clusters/prod', bucket: 'my-bucket', prefix: 'clusters/prod' });
    expect(parseSourceUri('s3://my-bucket')).toMatchObject({ bucket: 'my-bucket', prefix: '' });
    expect(parseSourceUri('r2://POLICIES/prod')).toEqual({ kind: 'r2', uri: 'r2://POLICIES/prod', binding: 'POLICIES', prefix: 'prod' });
  });

  it('says what is wrong with every source at once', () => {
    expect(() => resolveSources(['s3://Bad_Bucket/x', 'gs://b/p', 'r2://POLICIES/p', 'file://'], nodeSourceResolvers({ env: {} }), 'Node')).toThrow(
      [
        'policy source s3://Bad_Bucket/x: "Bad_Bucket" is not a valid S3 bucket name',
        'policy source gs://b/p: unknown scheme (use bundled, file://DIR, s3://bucket/prefix or r2://BINDING/prefix)',
        'policy source r2://POLICIES/p: r2:// sources are not available on Node (available: file://, s3://)',
        'policy source file://: no path after file://',
      ].join('; '),
    );
    expect(() => resolveSources([], nodeSourceResolvers({ env: {} }))).toThrow('no policy source configured');
  });

  it('refuses a Workers binding that is not an R2 bucket', () => {
    expect(() => resolveSources(['r2://POLICIES/p'], workerSourceResolvers({ POLICIES: 'not a bucket' }), 'Workers')).toThrow(
      'policy source r2://POLICIES/p: r2://POLICIES/p: the binding is not an R2 bucket (declare it under r2_buckets in wrangler.toml)',
    );
    expect(() => resolveSources(['file:///x'], workerSourceResolvers({}), 'Workers')).toThrow('file:// sources are not available on Workers (available: r2://)');
  });

  it('refuses a bad S3 endpoint setting when the source is made', () => {
    expect(() => resolveSources(['s3://b-1/p'], nodeSourceResolvers({ env: { AMENDER_S3_ENDPOINT: 'ftp://x', AMENDER_S3_FORCE_PATH_STYLE: 'yes' } }))).toThrow(
      'policy source s3://b-1/p: AMENDER_S3_ENDPOINT: expected an http(s) URL, got "ftp://x"; AMENDER_S3_FORCE_PATH_STYLE: expected true or false, got "yes"',
    );
    // A host:port without its scheme parses as the scheme `minio:`: the whole value says what is wrong.
    expect(() => resolveSources(['s3://b-1/p'], nodeSourceResolvers({ env: { AMENDER_S3_ENDPOINT: 'minio:9000' } }))).toThrow(
      'policy source s3://b-1/p: AMENDER_S3_ENDPOINT: expected an http(s) URL, got "minio:9000"',
    );
  });
});
