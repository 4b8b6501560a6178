/**
 * A policy folder holding YAML nested far too deeply (a ConfigMap of `x: [[[…]]]`, a block mapping 1,200
 * levels deep, about as deep as a 1 MiB document can indent): that document is one problem with the documented message, and the policies beside it, in
 * the same file and in the others, load.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_YAML_DEPTH } from '../../src/go/index.js';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { directorySource } from '../../src/sources/node/index.js';
import { labelPolicy } from './helpers.js';

let dir: string;
let refresher: PolicySetRefresher | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'amender-deep-'));
});
afterEach(async () => {
  refresher?.stop();
  await rm(dir, { recursive: true, force: true });
});

const deepConfigMap = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  x: ${'['.repeat(950)}${']'.repeat(950)}\n`;
const deepBlock = (() => {
  let text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: block}\ndata:\n';
  for (let i = 1; i <= 1_200; i++) text += `${' '.repeat(i)}k:\n`;
  return text;
})();

describe('a policy folder with YAML nested too deeply', () => {
  it('refuses only the deep documents; the policies beside them load', async () => {
    await writeFile(join(dir, 'a.yaml'), [labelPolicy('a', 'team', 'a'), deepConfigMap, deepBlock, labelPolicy('c', 'owner', 'c')].join('---\n'));
    await writeFile(join(dir, 'b.yaml'), labelPolicy('b', 'tier', 'b'));
    refresher = new PolicySetRefresher({ name: 'default', sources: [directorySource({ uri: `file://${dir}`, path: dir })], intervalMs: 0 });
    expect((await refresher.refresh()).outcome).toBe('applied');
    const set = refresher.provider().set!;
    expect(set.mutatingPolicies.map((p) => p.policy.name)).toEqual(['a', 'b', 'c']);
    expect(set.problems.map((p) => [p.source, p.index, p.effect, p.message.split(' at line')[0]])).toEqual([
      [join(dir, 'a.yaml'), 2, 'ignored', `invalid YAML: the document nests too deeply to read (more than ${MAX_YAML_DEPTH} levels)`],
      [join(dir, 'a.yaml'), 3, 'ignored', `invalid YAML: the document nests too deeply to read (more than ${MAX_YAML_DEPTH} levels)`],
    ]);
  });
});
