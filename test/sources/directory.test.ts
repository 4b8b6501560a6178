/** The folder source on a real temporary folder, including a ConfigMap-style `..data` symlink swap. */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { PolicySetRefresher, resolveSources, type PolicySource } from '../../src/sources/index.js';
import { directorySource, nodeSourceResolvers } from '../../src/sources/node/index.js';
import { CORRUPT_YAML, labelPolicy } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = `${ROOT}src/cli/bin.ts`;

let dir: string;
const refreshers: PolicySetRefresher[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'amender-dir-'));
});
afterEach(async () => {
  for (const r of refreshers.splice(0)) r.stop();
  await rm(dir, { recursive: true, force: true });
});

function refresherFor(path: string, options: { debounceMs?: number } = {}): PolicySetRefresher {
  const r = new PolicySetRefresher({ name: 'default', sources: [directorySource({ uri: `file://${path}`, path })], intervalMs: 0, ...options });
  refreshers.push(r);
  return r;
}

function names(r: PolicySetRefresher): string[] {
  return r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];
}

function labelValues(r: PolicySetRefresher): string[] {
  return (r.provider().set?.mutatingPolicies ?? []).map((p) => JSON.stringify(p.policy.mutations));
}

/** Waits (at most 10 s) until `check` holds; the watch and debounce run on their own timers. */
async function eventually(check: () => void): Promise<void> {
  await vi.waitFor(check, { timeout: 10_000, interval: 25 });
}

describe('directory source', () => {
  it('loads a folder like the CLI reads it: nested files in name order, hidden entries and tests/ skipped', async () => {
    await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'team', 'b'));
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'a.yml'), labelPolicy('a', 'owner', 'a'));
    await writeFile(join(dir, 'notes.txt'), 'not a policy');
    await mkdir(join(dir, 'tests'));
    await writeFile(join(dir, 'tests', 'pod.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: fixture}\n');
    await mkdir(join(dir, '.git'));
    await writeFile(join(dir, '.git', 'x.yaml'), labelPolicy('hidden', 'x', 'x'));
    const r = refresherFor(dir);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
    expect(r.provider().set?.counts.params).toBe(0);
  });

  it('reads one file given as the path', async () => {
    const file = join(dir, 'one.yaml');
    await writeFile(file, labelPolicy('one', 'team', 'x'));
    const sources = resolveSources([`file://${file}`], nodeSourceResolvers({ env: {} }));
    const r = new PolicySetRefresher({ name: 'default', sources, intervalMs: 0 });
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['one']);
    expect(r.provider().set?.problems).toEqual([]);
  });

  it('reads a List kind whose items is null as no object, as kubectl decodes it; never as one param object', async () => {
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'a'));
    await writeFile(join(dir, 'b.yaml'), 'apiVersion: v1\nkind: ConfigMapList\nitems: null\n---\napiVersion: v1\nkind: List\nitems: ~\n');
    await writeFile(join(dir, 'c.json'), '{"apiVersion": "v1", "kind": "ConfigMapList", "items": null}');
    const r = refresherFor(dir);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a']);
    expect(r.provider().set?.counts.params).toBe(0);
    expect(r.provider().set?.problems).toEqual([]);
  });

  it('reads a JSON file that starts with a byte-order mark, as kubectl does (a Windows editor writes one)', async () => {
    const [policy, binding] = parseAllDocuments(labelPolicy('json', 'team', 'one')).map((d) => d.toJSON());
    await writeFile(join(dir, 'a.json'), `\uFEFF${JSON.stringify([policy, binding])}`);
    await writeFile(join(dir, 'b.yaml'), `\uFEFF${labelPolicy('yaml', 'team', 'two')}`);
    const r = refresherFor(dir);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(r.provider().set?.problems).toEqual([]);
    expect(names(r)).toEqual(['json', 'yaml']);
  });

  it('reads a file written in UTF-16 with its byte-order mark, as kubectl does (PowerShell 5 redirects write it)', async () => {
    const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
    await writeFile(join(dir, 'le.yaml'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(labelPolicy('le', 'team', 'é'), 'utf16le')]));
    await writeFile(join(dir, 'be.yaml'), Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(labelPolicy('be', 'team', 'two'))]));
    const r = refresherFor(dir);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(r.provider().set?.problems).toEqual([]);
    expect(names(r)).toEqual(['be', 'le']);
    expect(labelValues(r)[1]).toContain('é');
  });

  it('applies a change on refresh, and rebuilds nothing when nothing changed', async () => {
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    const r = refresherFor(dir);
    await r.refresh();
    const first = r.provider().set;
    expect(await r.refresh()).toMatchObject({ outcome: 'unchanged', fetched: 0, skipped: 1 });
    expect(r.provider().set).toBe(first);
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'two'));
    await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'owner', 'ops'));
    expect(await r.refresh()).toMatchObject({ outcome: 'applied', fetched: 2 });
    expect(names(r)).toEqual(['a', 'b']);
    expect(labelValues(r)[0]).toContain('two');
  });

  it('applies an edit in place that keeps the size and sets the modification time back (cp -p, fixed build times)', async () => {
    const file = join(dir, 'a.yaml');
    await writeFile(file, labelPolicy('a', 'team', 'one'));
    const stamp = new Date('2020-01-01T00:00:00Z');
    await utimes(file, stamp, stamp);
    const r = refresherFor(dir);
    await r.refresh();
    expect(labelValues(r)[0]).toContain('one');
    await writeFile(file, labelPolicy('a', 'team', 'two')); // same length, same inode
    await utimes(file, stamp, stamp);
    expect(await r.refresh()).toMatchObject({ outcome: 'applied', fetched: 1 });
    expect(labelValues(r)[0]).toContain('two');
  });

  it('reports a file or folder whose name is not UTF-8 (Latin-1 é), and loads the others', async () => {
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    const latin1 = (text: string) => Buffer.from(text, 'latin1');
    await writeFile(Buffer.concat([latin1(`${dir}/politique-s`), latin1('\u00e9curit\u00e9.yaml')]), labelPolicy('b', 'team', 'two'));
    const folder = Buffer.concat([latin1(`${dir}/r`), latin1('\u00e8gles')]);
    await mkdir(folder);
    await writeFile(Buffer.concat([folder, latin1('/c.yaml')]), labelPolicy('c', 'team', 'three'));
    await writeFile(Buffer.concat([latin1(`${dir}/notes-`), latin1('\u00e9t\u00e9.txt')]), 'not a policy');
    const r = refresherFor(dir);
    await r.refresh();
    expect(names(r)).toEqual(['a']);
    const problems = r.provider().set!.problems.map((p) => `${p.source}: ${p.message}`);
    expect(problems).toEqual([
      `${dir}/politique-s\\xe9curit\\xe9.yaml: its name is not valid UTF-8, which Amender reads file names as: rename it; not read`,
      `${dir}/r\\xe8gles: its name is not valid UTF-8, which Amender reads file names as: rename it; not read`,
    ]);
  });

  it('refuses a file that is not UTF-8 (saved as Latin-1), as kubectl does: its last good version stays, the others load', async () => {
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'team', 'cafe'));
    const r = refresherFor(dir);
    await r.refresh();
    expect(labelValues(r)[1]).toContain('cafe');
    const latin1 = Buffer.from(labelPolicy('b', 'team', 'caf\u00e9'), 'latin1');
    await writeFile(join(dir, 'b.yaml'), latin1);
    await writeFile(join(dir, 'c.yaml'), Buffer.from(labelPolicy('c', 'team', '\u00e9t\u00e9'), 'latin1'));
    await r.refresh();
    expect(names(r)).toEqual(['a', 'b']);
    expect(labelValues(r)[1]).toContain('cafe');
    const at = latin1.indexOf(0xe9);
    expect(r.provider().set!.problems.map((p) => `${p.source}: ${p.message}`)).toEqual([
      `${dir}/b.yaml: cannot be read: not valid UTF-8 at byte ${at} (0x${at.toString(16)}): save the file as UTF-8; not read (the last good version of this document stays in force)`,
      expect.stringMatching(new RegExp(`^${dir}/c.yaml: cannot be read: not valid UTF-8 at byte \\d+`)),
    ]);
  });

  it('detects changes by watching the folder, after a quiet time', async () => {
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    const r = refresherFor(dir, { debounceMs: 50 });
    await r.refresh();
    r.start();
    await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'owner', 'ops'));
    await eventually(() => expect(names(r)).toEqual(['a', 'b']));
    await rm(join(dir, 'a.yaml'));
    await eventually(() => expect(names(r)).toEqual(['b']));
  });

  it('keeps the other files when one is broken, and a half-written file never replaces a readable one', async () => {
    await writeFile(join(dir, 'good.yaml'), labelPolicy('good', 'team', 'one'));
    await writeFile(join(dir, 'broken.yaml'), CORRUPT_YAML);
    const r = refresherFor(dir);
    await r.refresh();
    expect(names(r)).toEqual(['good']);
    expect(r.provider().set?.problems.map((p) => [p.source, p.effect])).toEqual([[join(dir, 'broken.yaml'), 'ignored']]);

    // An editor or a copy writes the file in pieces. A first piece that still parses as YAML but is no
    // longer a valid policy, then one that does not parse: the readable version stays in force.
    const full = labelPolicy('good', 'team', 'two');
    const pieces = [full.slice(0, full.indexOf('  matchConstraints')), full.slice(0, full.indexOf('apiVersions: ["v1"]') + 16)];
    for (const piece of pieces) {
      await writeFile(join(dir, 'good.yaml'), piece);
      expect((await r.refresh()).outcome).toBe('applied');
      expect(names(r)).toEqual(['good']);
      expect(labelValues(r)[0]).toContain('one');
      const kept = r.provider().set!.problems.filter((p) => p.source === join(dir, 'good.yaml'));
      expect(kept.length).toBeGreaterThan(0);
      for (const p of kept) expect(p.message).toMatch(/\(the last good version of this document stays in force\)$/);
    }
    expect(r.provider().set!.problems.find((p) => p.source === join(dir, 'good.yaml'))!.message).toMatch(/^invalid YAML/);
    await writeFile(join(dir, 'good.yaml'), full);
    await r.refresh();
    expect(labelValues(r)[0]).toContain('two');
    expect(r.provider().set?.problems.filter((p) => p.source === join(dir, 'good.yaml'))).toEqual([]);
  });

  it('leaves out a file over the size limit, unread, and loads the others; a kept version stays in force', async () => {
    await writeFile(join(dir, 'a.yaml'), labelPolicy('pol-a', 'team', 'a'));
    await writeFile(join(dir, 'b.yaml'), labelPolicy('pol-b', 'team', 'b'));
    const big = labelPolicy('pol-big', 'team', 'big') + `#${'x'.repeat(999)}\n`.repeat(1100);
    await writeFile(join(dir, 'big.yaml'), big);
    const r = refresherFor(dir);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(r.provider().sourceErrors).toEqual([]);
    expect(names(r)).toEqual(['pol-a', 'pol-b']);
    const problems = r.provider().set!.problems;
    expect(problems.map((p) => [p.source, p.effect])).toEqual([[join(dir, 'big.yaml'), 'ignored']]);
    expect(problems[0].message).toBe(`is ${Buffer.byteLength(big)} bytes, over the limit of 1048576 bytes per file or object; not read`);

    // A running source: later changes still apply; a policy that grows past the limit keeps its last good version.
    await writeFile(join(dir, 'c.yaml'), labelPolicy('pol-c', 'team', 'c'));
    await writeFile(join(dir, 'a.yaml'), labelPolicy('pol-a', 'team', 'a') + `#${'x'.repeat(999)}\n`.repeat(1100));
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['pol-a', 'pol-b', 'pol-c']);
    const kept = r.provider().set!.problems.find((p) => p.source === join(dir, 'a.yaml'))!;
    expect(kept.message).toMatch(/^is \d+ bytes, over the limit of 1048576 bytes per file or object; not read \(the last good version of this document stays in force\)$/);
    await rm(join(dir, 'big.yaml'));
    await writeFile(join(dir, 'a.yaml'), labelPolicy('pol-a', 'team', 'a2'));
    expect((await r.refresh()).outcome).toBe('applied');
    expect(r.provider().set!.problems).toEqual([]);
    expect(labelValues(r)[0]).toContain('a2');
  });

  it('skips a folder link that loops back, with a problem, and loads the others', async () => {
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'a.yaml'), labelPolicy('pol-a', 'team', 'a'));
    await writeFile(join(dir, 'sub', 'b.yaml'), labelPolicy('pol-b', 'team', 'b'));
    await symlink('..', join(dir, 'sub', 'up'));
    const r = refresherFor(dir);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(r.provider().sourceErrors).toEqual([]);
    expect(names(r)).toEqual(['pol-a', 'pol-b']);
    const problems = r.provider().set!.problems;
    expect(problems.map((p) => [p.source, p.effect])).toEqual([[join(dir, 'sub', 'up'), 'ignored']]);
    expect(problems[0].message).toMatch(/^a link loop/);
    expect((await r.refresh()).outcome).toBe('unchanged');
  });

  it('follows a ConfigMap update: the ..data symlink swapped in one rename', async () => {
    // The kubelet's layout: files are links through ..data to a timestamped folder.
    const v1 = join(dir, '..2024_01_01_00_00_00.000000001');
    await mkdir(v1);
    await writeFile(join(v1, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    await writeFile(join(v1, 'b.yaml'), labelPolicy('b', 'owner', 'one'));
    await symlink('..2024_01_01_00_00_00.000000001', join(dir, '..data'));
    await symlink('..data/a.yaml', join(dir, 'a.yaml'));
    await symlink('..data/b.yaml', join(dir, 'b.yaml'));
    const r = refresherFor(dir, { debounceMs: 50 });
    expect((await r.refresh()).outcome).toBe('applied');
    expect(names(r)).toEqual(['a', 'b']);
    const first = r.provider().set;
    r.start();

    // Update: a new timestamped folder (b changed, c added), the new link renamed over ..data, the old
    // folder removed — as the kubelet's atomic writer does.
    const v2 = join(dir, '..2024_01_01_00_01_00.000000002');
    await mkdir(v2);
    await writeFile(join(v2, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    await writeFile(join(v2, 'b.yaml'), labelPolicy('b', 'owner', 'two'));
    await writeFile(join(v2, 'c.yaml'), labelPolicy('c', 'tier', 'two'));
    await symlink('..2024_01_01_00_01_00.000000002', join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    await symlink('..data/c.yaml', join(dir, 'c.yaml'));
    await rm(v1, { recursive: true });

    await eventually(() => expect(names(r)).toEqual(['a', 'b', 'c']));
    expect(r.provider().set).not.toBe(first);
    expect(labelValues(r)[1]).toContain('two');
    expect(r.provider().sourceErrors).toEqual([]);
  });

  /** A ConfigMap folder `dir` at generation `g` (labels `gen-a` and `gen-b` both `g<g>`); the old one removed. */
  async function publish(g: number): Promise<void> {
    const folder = `..2024_01_01_00_00_0${g}.000000001`;
    await mkdir(join(dir, folder));
    await writeFile(join(dir, folder, 'a.yaml'), labelPolicy('a', 'gen-a', `g${g}`));
    await writeFile(join(dir, folder, 'b.yaml'), labelPolicy('b', 'gen-b', `g${g}`));
    await symlink(folder, join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    if (g > 1) await rm(join(dir, `..2024_01_01_00_00_0${g - 1}.000000001`), { recursive: true });
    else for (const f of ['a.yaml', 'b.yaml']) await symlink(`..data/${f}`, join(dir, f));
  }

  /** The folder source of `dir`, swapping to the next generation right after the listing of the next `swaps` refreshes. */
  function swappingSource(state: { swaps: number; generation: number; lists: number }): PolicySource {
    const inner = directorySource({ uri: `file://${dir}`, path: dir });
    return {
      uri: inner.uri,
      list: async (o) => {
        state.lists++;
        const listed = await inner.list(o);
        if (state.swaps > 0) {
          state.swaps--;
          await publish(++state.generation); // the old generation's folder is removed too
        }
        return listed;
      },
      fetch: (entry, o) => inner.fetch(entry, o),
      confirm: (o) => inner.confirm!(o),
    };
  }

  it('reads a ConfigMap folder as one generation: a swap during the reads makes it read again', async () => {
    await publish(1);
    const state = { swaps: 0, generation: 1, lists: 0 };
    const r = new PolicySetRefresher({ name: 'default', sources: [swappingSource(state)], intervalMs: 0 });
    expect((await r.refresh()).outcome).toBe('applied');
    expect(labelValues(r).join()).toMatch(/g1.*g1/);
    // Labels are the paths a person sees, not the timestamped folder read.
    expect(r.provider().set!.mutatingPolicies).toHaveLength(2);

    state.swaps = 1;
    state.lists = 0;
    const result = await r.refresh();
    expect(result.outcome).toBe('applied');
    expect(state.lists).toBe(2); // the generation moved under the first read
    const values = labelValues(r);
    expect(values[0]).toContain('value: \\"g2');
    expect(values[1]).toContain('value: \\"g2');
    expect(r.provider().sourceErrors).toEqual([]);
  });

  it('fails the refresh, keeping the last good set, when the folder swaps under two reads in a row', async () => {
    await publish(1);
    const state = { swaps: 0, generation: 1, lists: 0 };
    const r = new PolicySetRefresher({ name: 'default', sources: [swappingSource(state)], intervalMs: 0 });
    await r.refresh();
    const good = r.provider().set;
    state.swaps = 2;
    const result = await r.refresh();
    expect(result.outcome).toBe('failed');
    expect(result.errors[0]).toMatch(/kept changing while being read, twice in a row/);
    expect(r.provider().set).toBe(good);
    expect(r.provider().sourceErrors[0]).toMatch(/stays in force\)$/);
    expect((await r.refresh()).outcome).toBe('applied'); // quiet again: generation 3
    expect(labelValues(r)[0]).toContain('value: \\"g3');
  });

  it('follows a folder removed and made again, and one that did not exist at start, without a refresh interval', async () => {
    const folder = join(dir, 'policies');
    await mkdir(folder);
    await writeFile(join(folder, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    const r = refresherFor(folder, { debounceMs: 50 });
    await r.refresh();
    r.start();
    await rm(folder, { recursive: true });
    await eventually(() => expect(r.provider().sourceErrors).toHaveLength(1));
    await mkdir(folder);
    await writeFile(join(folder, 'b.yaml'), labelPolicy('b', 'team', 'two'));
    await eventually(() => expect([names(r), r.provider().sourceErrors]).toEqual([['b'], []]));
    // The new folder is watched: a change in it is followed too.
    await writeFile(join(folder, 'c.yaml'), labelPolicy('c', 'team', 'three'));
    await eventually(() => expect(names(r)).toEqual(['b', 'c']));

    const later = join(dir, 'later');
    const l = refresherFor(later, { debounceMs: 50 });
    expect((await l.refresh()).outcome).toBe('failed');
    l.start();
    await mkdir(later);
    await writeFile(join(later, 'd.yaml'), labelPolicy('d', 'team', 'four'));
    await eventually(() => expect(names(l)).toEqual(['d']));
  });

  it('keeps the last good set when the folder disappears, and says why', async () => {
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
    const r = refresherFor(dir);
    await r.refresh();
    await rm(dir, { recursive: true });
    const result = await r.refresh();
    expect(result.outcome).toBe('failed');
    expect(result.errors).toEqual([`file://${dir}: ${dir}: no such file or folder`]);
    expect(names(r)).toEqual(['a']);
    expect(r.provider().sourceErrors[0]).toMatch(/no such file or folder \(the set loaded at .* stays in force\)/);
  });

  describe('a file that cannot be read (a link loop, no permission)', () => {
    it('is a problem of its own: the other files load, its last good version stays, and it is read again once fixed', async () => {
      await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
      await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'team', 'two'));
      await symlink('loop.yaml', join(dir, 'loop.yaml')); // stat: ELOOP
      const r = refresherFor(dir);
      expect((await r.refresh()).outcome).toBe('applied');
      expect(r.provider().sourceErrors).toEqual([]);
      expect(names(r)).toEqual(['a', 'b']);
      expect(r.provider().set!.problems.map((p) => [p.source, p.effect, p.message])).toEqual([
        [join(dir, 'loop.yaml'), 'ignored', expect.stringMatching(/^cannot be read: ELOOP: too many symbolic links encountered.*; not read$/)],
      ]);
      // b.yaml becomes the loop: its last good version stays in force.
      await rm(join(dir, 'b.yaml'));
      await symlink('b.yaml', join(dir, 'b.yaml'));
      await rm(join(dir, 'loop.yaml'));
      expect((await r.refresh()).outcome).toBe('applied');
      expect(names(r)).toEqual(['a', 'b']);
      expect(r.provider().set!.problems.map((p) => [p.source, p.message])).toEqual([
        [join(dir, 'b.yaml'), expect.stringMatching(/^cannot be read: ELOOP.*; not read \(the last good version of this document stays in force\)$/)],
      ]);
      await rm(join(dir, 'b.yaml'));
      await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'team', 'three'));
      expect((await r.refresh()).outcome).toBe('applied');
      expect(r.provider().set!.problems).toEqual([]);
      expect(labelValues(r)[1]).toContain('three');
    });

    it('a file without read permission: amender validate names it and loads the others (run as an unprivileged user)', async () => {
      await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
      await writeFile(join(dir, 'secret.yaml'), labelPolicy('s', 'team', 'two'), { mode: 0o600 });
      await chmod(dir, 0o755);
      const asRoot = process.getuid?.() === 0;
      if (!asRoot) await chmod(join(dir, 'secret.yaml'), 0o000);
      // As root every file reads: the CLI runs as nobody (65534), to whom the 0600 file belongs not.
      const r = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'validate', dir], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 20_000,
        ...(asRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: '/tmp' } } : {}),
      });
      expect(r.stderr).not.toContain('cannot read policies from');
      expect(r.stdout + r.stderr).toContain(`${join(dir, 'secret.yaml')}`);
      expect(r.stdout + r.stderr).toMatch(/secret\.yaml#0: cannot be read: EACCES: permission denied.*; not read \(ignored\)/);
      expect(r.stdout + r.stderr).toContain('1 problem (mutatingAdmissionPolicies: 1, mutatingAdmissionPolicyBindings: 1,');
      expect(r.status).toBe(1);
    });
  });

  it('skips lost+found, which a volume mounted as the folder holds and only root may read', async () => {
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'), { mode: 0o644 });
    await mkdir(join(dir, 'lost+found'), { mode: 0o700 });
    await chmod(join(dir, 'lost+found'), 0o700);
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) await chmod(join(dir, 'lost+found'), 0o000);
    // As root the folder reads: the CLI runs as nobody (65534), as a server in a pod runs.
    const r = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'validate', dir], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 20_000,
      ...(asRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: '/tmp' } } : {}),
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^ok \(mutatingAdmissionPolicies: 1, mutatingAdmissionPolicyBindings: 1,/);
    expect(r.status).toBe(0);
  });

  describe('a subfolder that cannot be read (run as an unprivileged user)', () => {
    const asRoot = process.getuid?.() === 0;
    /** A refresher in a process of its own, as nobody when this one is root: it refreshes on each line it reads. */
    async function unprivilegedRefresher(path: string) {
      const script = join(await mkdtemp(join(tmpdir(), 'amender-script-')), 'refresh.mts');
      await writeFile(
        script,
        `import { createInterface } from 'node:readline';
import { PolicySetRefresher } from '${ROOT}src/sources/index.ts';
import { directorySource } from '${ROOT}src/sources/node/index.ts';
const r = new PolicySetRefresher({ name: 'default', sources: [directorySource({ uri: 'file://${path}', path: '${path}' })], intervalMs: 0 });
for await (const _ of createInterface({ input: process.stdin })) {
  const result = await r.refresh();
  const set = r.provider().set;
  console.log(JSON.stringify({ outcome: result.outcome, errors: result.errors, names: set?.mutatingPolicies.map((p) => p.policy.name), problems: set?.problems.map((p) => p.source + ': ' + p.message) }));
}
`,
        { mode: 0o644 },
      );
      await chmod(dirname(script), 0o755);
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
        ...(asRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: '/tmp' } } : {}),
      });
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      return {
        async refresh() {
          child.stdin!.write('\n');
          return JSON.parse((await lines.next()).value as string) as { outcome: string; errors: string[]; names: string[]; problems: string[] };
        },
        async close() {
          child.kill();
          await rm(dirname(script), { recursive: true, force: true });
        },
      };
    }
    /** `mode` keeps nobody out when this process is root; else the owner loses the same permissions. */
    const lock = (path: string, mode: number) => chmod(path, asRoot ? mode : mode === 0o700 ? 0o000 : 0o644);

    for (const [what, mode] of [
      ['cannot be listed (no read or search permission)', 0o700],
      ['can be listed but not searched (chmod 744), and holds a file of another kind', 0o744],
    ] as const) {
      it(`${what}: a problem of its own; the documents last read below it stay in force, and are read again once it is fixed`, async () => {
        await chmod(dir, 0o755);
        await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'), { mode: 0o644 });
        await mkdir(join(dir, 'sub'), { mode: 0o755 });
        await chmod(join(dir, 'sub'), 0o755);
        await writeFile(join(dir, 'sub', 'b.yaml'), labelPolicy('b', 'team', 'two'), { mode: 0o644 });
        await writeFile(join(dir, 'sub', 'notes.md'), '# notes\n', { mode: 0o644 });
        const r = await unprivilegedRefresher(dir);
        try {
          expect(await r.refresh()).toMatchObject({ outcome: 'applied', errors: [], names: ['a', 'b'], problems: [] });
          await lock(join(dir, 'sub'), mode);
          const locked = await r.refresh();
          expect(locked.errors).toEqual([]);
          expect(locked).toMatchObject({ outcome: 'applied', names: ['a', 'b'] });
          expect(locked.problems).toEqual([expect.stringMatching(new RegExp(`^${join(dir, 'sub')}: cannot be read: EACCES: permission denied.*; not read \\(the documents last read below it stay in force\\)$`))]);
          // Unchanged while it stays so; the last good documents below it stay.
          expect(await r.refresh()).toMatchObject({ outcome: 'unchanged', names: ['a', 'b'] });
          await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'three'), { mode: 0o644 });
          expect(await r.refresh()).toMatchObject({ outcome: 'applied', names: ['a', 'b'] });
          await chmod(join(dir, 'sub'), 0o755);
          expect(await r.refresh()).toMatchObject({ outcome: 'applied', errors: [], names: ['a', 'b'], problems: [] });
          // Once fixed, a change below it is read.
          await rm(join(dir, 'sub', 'b.yaml'));
          expect(await r.refresh()).toMatchObject({ outcome: 'applied', names: ['a'], problems: [] });
        } finally {
          await r.close();
        }
      });
    }

    it('a link that loops, named like no policy file, leads nowhere: skipped like a dangling link', async () => {
      await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
      await symlink(join(dir, 'loop'), join(dir, 'loop'));
      const r = refresherFor(dir);
      const result = await r.refresh();
      expect(result.errors).toEqual([]);
      expect(names(r)).toEqual(['a']);
      expect(r.provider().set!.problems).toEqual([]);
    });

    it('unreadable at the first load: amender validate names it and loads the others', async () => {
      await chmod(dir, 0o755);
      await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'), { mode: 0o644 });
      await mkdir(join(dir, 'private'), { mode: 0o700 });
      await writeFile(join(dir, 'private', 'b.yaml'), labelPolicy('b', 'team', 'two'), { mode: 0o644 });
      await lock(join(dir, 'private'), 0o700);
      const r = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'validate', dir], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 20_000,
        ...(asRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: '/tmp' } } : {}),
      });
      expect(r.stderr).not.toContain('cannot read policies from');
      // Nothing was read below it before: nothing of it stays in force to speak of.
      expect(r.stdout + r.stderr).toMatch(new RegExp(`${join(dir, 'private')}#0: cannot be read: EACCES: permission denied.*; not read \\(ignored\\)`));
      expect(r.stdout + r.stderr).toContain('1 problem (mutatingAdmissionPolicies: 1, mutatingAdmissionPolicyBindings: 1,');
      expect(r.status).toBe(1);
    });
  });

  describe('a file whose read permission comes back', () => {
    it('is read again on the next refresh, though chmod left its modification time as it was', async () => {
      await chmod(dir, 0o755);
      await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'), { mode: 0o644 });
      await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'team', 'two'), { mode: 0o600 });
      const asRoot = process.getuid?.() === 0;
      if (!asRoot) await chmod(join(dir, 'b.yaml'), 0o000);
      // A refresher in a process of its own, as nobody when this one is root: it refreshes on each line it reads.
      const script = join(await mkdtemp(join(tmpdir(), 'amender-script-')), 'refresh.mts');
      await writeFile(
        script,
        `import { createInterface } from 'node:readline';
import { PolicySetRefresher } from '${ROOT}src/sources/index.ts';
import { directorySource } from '${ROOT}src/sources/node/index.ts';
const r = new PolicySetRefresher({ name: 'default', sources: [directorySource({ uri: 'file://${dir}', path: '${dir}' })], intervalMs: 0 });
for await (const _ of createInterface({ input: process.stdin })) {
  const result = await r.refresh();
  const set = r.provider().set;
  console.log(JSON.stringify({ outcome: result.outcome, errors: result.errors, names: set?.mutatingPolicies.map((p) => p.policy.name), problems: set?.problems.map((p) => p.message) }));
}
`,
        { mode: 0o644 },
      );
      await chmod(dirname(script), 0o755);
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
        ...(asRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: '/tmp' } } : {}),
      });
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      const refresh = async () => {
        child.stdin!.write('\n');
        return JSON.parse((await lines.next()).value as string) as { outcome: string; names: string[]; problems: string[] };
      };
      try {
        const first = await refresh();
        expect(first).toMatchObject({ outcome: 'applied', names: ['a'], problems: [expect.stringMatching(/^cannot be read: EACCES: permission denied.*; not read$/)] });
        await chmod(join(dir, 'b.yaml'), 0o644);
        const second = await refresh();
        expect(second).toMatchObject({ outcome: 'applied', names: ['a', 'b'], problems: [] });
      } finally {
        child.kill();
        await rm(dirname(script), { recursive: true, force: true });
      }
    });
  });

  describe('a FIFO (or other non-regular file) named like a policy file', () => {
    const fifos: string[] = [];
    afterEach(async () => {
      // A read blocked opening a FIFO (what this guards against) is let go: a writer opens and closes it.
      for (const fifo of fifos.splice(0)) await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then((h) => h.close(), () => {});
    });
    const mkfifo = (path: string) => {
      execFileSync('mkfifo', [path]);
      fifos.push(path);
    };

    it('is reported as a problem of its own, never opened, and the other files load', async () => {
      await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
      mkfifo(join(dir, 'pipe.yaml'));
      const r = new PolicySetRefresher({ name: 'default', sources: [directorySource({ uri: `file://${dir}`, path: dir })], intervalMs: 0, limits: { timeoutMs: 5_000 } });
      expect((await r.refresh()).outcome).toBe('applied');
      expect(names(r)).toEqual(['a']);
      expect(r.provider().set!.problems.map((p) => [p.source, p.effect, p.message])).toEqual([
        [join(dir, 'pipe.yaml'), 'ignored', 'not a regular file but a FIFO (named pipe); not read'],
      ]);
      expect((await r.refresh()).outcome).toBe('unchanged');
    });

    it('never blocks a refresh when a file listed regular is a FIFO by the time it is read', async () => {
      await writeFile(join(dir, 'a.yaml'), labelPolicy('a', 'team', 'one'));
      await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'team', 'two'));
      const inner = directorySource({ uri: `file://${dir}`, path: dir });
      let swapped = false;
      const source: PolicySource = {
        ...inner,
        async list(options) {
          const entries = await inner.list(options);
          if (!swapped) {
            swapped = true;
            await rm(join(dir, 'b.yaml'));
            mkfifo(join(dir, 'b.yaml'));
          }
          return entries;
        },
      };
      const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, limits: { timeoutMs: 5_000 } });
      const result = await r.refresh();
      expect(result.errors).toEqual([]);
      expect(result.outcome).toBe('applied');
      expect(names(r)).toEqual(['a']);
      expect(r.provider().set!.problems.map((p) => p.message)).toEqual(['not a regular file but a FIFO (named pipe); not read']);
    });

    it('fails the source with a clear error when the configured path itself is one', async () => {
      const fifo = join(dir, 'policies.yaml');
      mkfifo(fifo);
      const r = new PolicySetRefresher({ name: 'default', sources: [directorySource({ uri: `file://${fifo}`, path: fifo })], intervalMs: 0, limits: { timeoutMs: 5_000 } });
      const result = await r.refresh();
      expect(result.outcome).toBe('failed');
      expect(result.errors).toEqual([`file://${fifo}: ${fifo} is not a regular file but a FIFO (named pipe), not a file or folder`]);
    });
  });
});
