/**
 * A policy file written in place (not renamed over) can be caught between two writes: cut at a document
 * boundary (the policy written, its binding not yet), or truncated to 0 bytes before it is written again.
 * Both still parse. A refresher that follows a folder takes a changed, new or removed file only once two
 * looks a settle time apart agree, so such a state never becomes the set in force; an empty file never
 * removes a working policy; a policy left without a binding is reported. The first read is not slowed.
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { directorySource } from '../../src/sources/node/index.js';
import type { LogRecord } from '../../src/server/index.js';
import { labelPolicy } from './helpers.js';

const SETTLE_MS = 600;
let dir: string;
const refreshers: PolicySetRefresher[] = [];
let logs: LogRecord[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'amender-settle-'));
  logs = [];
});
afterEach(async () => {
  for (const r of refreshers.splice(0)) r.stop();
  await rm(dir, { recursive: true, force: true });
});

function refresherFor(path: string, settleMs = SETTLE_MS): PolicySetRefresher {
  const r = new PolicySetRefresher({
    name: 'default',
    sources: [directorySource({ uri: `file://${path}`, path })],
    intervalMs: 0,
    debounceMs: 50,
    settleMs,
    logger: (record) => logs.push(record),
  });
  refreshers.push(r);
  return r;
}

/** `name:bindings` of every policy in force. */
function bound(r: PolicySetRefresher): string[] {
  return r.provider().set?.mutatingPolicies.map((p) => `${p.policy.name}:${p.bindings.length}`) ?? [];
}

function labelValues(r: PolicySetRefresher): string[] {
  return (r.provider().set?.mutatingPolicies ?? []).map((p) => JSON.stringify(p.policy.mutations));
}

async function eventually(check: () => void, timeout = 10_000): Promise<void> {
  await vi.waitFor(check, { timeout, interval: 20 });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records what the set in force looked like every 5 ms until stopped. */
function sampler(r: PolicySetRefresher): { seen: Set<string>; stop: () => void } {
  const seen = new Set<string>();
  const sample = () => seen.add(bound(r).join(','));
  const timer = setInterval(sample, 5);
  return {
    seen,
    stop: () => {
      clearInterval(timer);
      sample();
    },
  };
}

/** The text of `labelPolicy` cut right after its first document (the binding not yet written). */
function policyOnly(text: string): string {
  return text.slice(0, text.indexOf('\n---\n') + 1);
}

describe('a folder written in place', () => {
  it('never takes a write caught at a document boundary: the policy keeps its binding until the file reads the same twice', async () => {
    const file = join(dir, 'a.yaml');
    await writeFile(file, labelPolicy('a', 'team', 'one'));
    const r = refresherFor(dir);
    expect((await r.refresh()).outcome).toBe('applied');
    r.start();
    const watch = sampler(r);

    const next = labelPolicy('a', 'team', 'two');
    await writeFile(file, policyOnly(next)); // the writer's first write
    await r.refresh(); // a timer, a SIGHUP or another file's change lands between the two writes
    expect(bound(r)).toEqual(['a:1']);
    expect(labelValues(r)[0]).toContain('one');
    await sleep(50);
    await writeFile(file, next); // the writer's second write
    await eventually(() => expect(labelValues(r)[0]).toContain('two'));
    watch.stop();
    expect(bound(r)).toEqual(['a:1']);
    expect([...watch.seen]).toEqual(['a:1']); // never a policy without its binding, never no policy
    expect(r.provider().set?.problems).toEqual([]);
  });

  it('keeps a policy whose file is truncated to 0 bytes, says so, and lets only a deletion remove it', async () => {
    const file = join(dir, 'a.yaml');
    await writeFile(file, labelPolicy('a', 'team', 'one'));
    await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'owner', 'ops'));
    const r = refresherFor(dir);
    await r.refresh();
    r.start();
    const watch = sampler(r);

    await writeFile(file, ''); // truncated, and the writer stops (a full disk, a crash)
    await r.refresh();
    expect(bound(r)).toEqual(['a:1', 'b:1']);
    await eventually(() => expect(r.provider().set?.problems.length).toBe(1));
    const [problem] = r.provider().set!.problems;
    expect(problem).toMatchObject({ source: file, effect: 'ignored', path: '' });
    expect(problem.message).toMatch(/^holds no document now, while its last good version held 2 .*\(the last good version of this document stays in force\)$/);
    expect(bound(r)).toEqual(['a:1', 'b:1']);
    expect(r.stats().refusedDocuments).toBe(1);
    expect(logs.some((l) => l.msg === 'policy problem' && l.source === file)).toBe(true);

    await rm(file); // a deletion is how a file's policies go
    await eventually(() => expect(bound(r)).toEqual(['b:1']));
    watch.stop();
    expect([...watch.seen]).toEqual(['a:1,b:1', 'b:1']);
    expect(r.provider().set?.problems).toEqual([]);
  });

  it('takes a finished edit once it has settled, with no further write, timer or signal', async () => {
    const file = join(dir, 'a.yaml');
    await writeFile(file, labelPolicy('a', 'team', 'one'));
    const r = refresherFor(dir);
    await r.refresh();
    r.start();
    await writeFile(file, labelPolicy('a', 'team', 'two'));
    const written = Date.now();
    expect((await r.refresh()).outcome).toBe('unchanged'); // seen once: not yet
    expect(labelValues(r)[0]).toContain('one');
    await eventually(() => expect(labelValues(r)[0]).toContain('two'));
    expect(Date.now() - written).toBeGreaterThanOrEqual(SETTLE_MS - 20);
  });

  it('takes a new text rewritten, the same, faster than the settle time (each write a new modification time)', async () => {
    const file = join(dir, 'a.yaml');
    await writeFile(file, labelPolicy('a', 'team', 'one'));
    const r = refresherFor(dir);
    await r.refresh();
    r.start();
    // The same new text written every 150 ms for longer than the settle time: it reads the same each look.
    const until = Date.now() + 4 * SETTLE_MS;
    let applied = false;
    while (Date.now() < until && !applied) {
      await writeFile(file, labelPolicy('a', 'team', 'two'));
      await sleep(150);
      await r.refresh();
      applied = labelValues(r)[0].includes('two');
    }
    expect(applied).toBe(true);
  });

  it('lets a new file and a removed file settle too', async () => {
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'owner', 'ops'));
    const r = refresherFor(dir);
    await r.refresh();
    r.start();
    const watch = sampler(r);

    const c = labelPolicy('c', 'tier', 'web');
    await writeFile(join(dir, 'c.yaml'), policyOnly(c)); // a new file, its binding not yet written
    await r.refresh();
    expect(bound(r)).toEqual(['a:1', 'b:1']);
    await writeFile(join(dir, 'c.yaml'), c);
    await eventually(() => expect(bound(r)).toEqual(['a:1', 'b:1', 'c:1']));

    // A writer that deletes and creates again: the file is missing for a moment.
    const b = join(dir, 'b.yaml');
    await rm(b);
    await r.refresh();
    expect(bound(r)).toEqual(['a:1', 'b:1', 'c:1']);
    await writeFile(b, labelPolicy('b', 'owner', 'ops'));
    await sleep(SETTLE_MS * 2);
    await r.refresh();
    expect(bound(r)).toEqual(['a:1', 'b:1', 'c:1']);

    await rm(b);
    await eventually(() => expect(bound(r)).toEqual(['a:1', 'c:1']));
    watch.stop();
    expect([...watch.seen]).toEqual(['a:1,b:1', 'a:1,b:1,c:1', 'a:1,c:1']);
  });

  it('does not slow the first read, nor a caller that drives refresh() itself, nor a ConfigMap swap', async () => {
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    const r = refresherFor(dir, 60_000);
    const started = Date.now();
    expect((await r.refresh()).outcome).toBe('applied');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(bound(r)).toEqual(['a:1']);
    // Not started: a caller that calls refresh() itself (the CLI, Lambda) cannot be called back later.
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'two'));
    expect((await r.refresh()).outcome).toBe('applied');
    expect(labelValues(r)[0]).toContain('two');

    // A ConfigMap: the kubelet swaps a whole generation in one rename; nothing is half-written.
    const cm = join(dir, 'cm');
    await mkdir(cm);
    await mkdir(join(cm, '..gen1'));
    await writeFile(join(cm, '..gen1', 'x.yaml'), labelPolicy('x', 'team', 'one'));
    await symlink('..gen1', join(cm, '..data'));
    await symlink('..data/x.yaml', join(cm, 'x.yaml'));
    const configMap = refresherFor(cm, 60_000);
    await configMap.refresh();
    configMap.start();
    await mkdir(join(cm, '..gen2'));
    await writeFile(join(cm, '..gen2', 'x.yaml'), labelPolicy('x', 'team', 'two'));
    await symlink('..gen2', join(cm, '..data_tmp'));
    await rename(join(cm, '..data_tmp'), join(cm, '..data'));
    const swapped = Date.now();
    await eventually(() => expect(labelValues(configMap)[0]).toContain('two'), 5_000);
    expect(Date.now() - swapped).toBeLessThan(5_000);
  });
});

describe('a policy without a binding', () => {
  it('is reported in the warnings of /readyz and the log, and the report goes with the binding back', async () => {
    const policy = labelPolicy('a', 'team', 'one');
    const sep = policy.indexOf('\n---\n');
    await writeFile(join(dir, 'a-policy.yaml'), policy.slice(0, sep + 1));
    await writeFile(join(dir, 'a-binding.yaml'), policy.slice(sep + 5));
    const r = refresherFor(dir);
    await r.refresh();
    expect(bound(r)).toEqual(['a:1']);
    expect(r.provider().warnings).toBeUndefined();

    await rm(join(dir, 'a-binding.yaml'));
    expect((await r.refresh()).outcome).toBe('applied');
    expect(bound(r)).toEqual(['a:0']);
    expect(r.provider().warnings).toEqual([
      `MutatingAdmissionPolicy a (${join(dir, 'a-policy.yaml')}) has no MutatingAdmissionPolicyBinding naming it: it mutates nothing`,
    ]);
    expect(logs.filter((l) => l.msg === 'policy has no binding').map((l) => l.warning)).toEqual(r.provider().warnings);

    await writeFile(join(dir, 'a-binding.yaml'), policy.slice(sep + 5));
    await r.refresh();
    expect(bound(r)).toEqual(['a:1']);
    expect(r.provider().warnings).toBeUndefined();
  });
});
