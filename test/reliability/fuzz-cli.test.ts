/**
 * A seeded, bounded fuzz sweep of the CLI on broken files, run as a user runs it (helpers/document-mutations.ts
 * changes a file's documents in one to three places):
 *  - `amender test` on a kyverno/policies library folder (its policy, kyverno-test.yaml, resources, patched
 *    resources, values) with one of its YAML files broken;
 *  - `amender apply` (as a resource, as a patch, as an UPDATE), `validate` and `webhook-config` on a library
 *    policy and a test resource, one of the two broken.
 * Whatever the change, the command ends with a verdict or a message: exit 0 or 1, never an internal error,
 * never a throw.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_CLI_SEEDS=1,2,3 and FUZZ_CLI_CASES=n sweep more.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';
import { ROOT } from '../node/built.js';
import { breakDocument } from './helpers/document-mutations.js';
import { LIBRARIES, yamlFiles } from './helpers/library-corpus.js';
import { Prng } from './helpers/prng.js';

const SEEDS = process.env.FUZZ_CLI_SEEDS ? process.env.FUZZ_CLI_SEEDS.split(',').map(Number) : [0x7e57];
const CASES_PER_SEED = Number(process.env.FUZZ_CLI_CASES ?? 300);

/** Each library folder that has a kyverno-test.yaml, with its files' text by path from the repository. */
function testFolders(): { folder: string; files: Record<string, string> }[] {
  return LIBRARIES.flatMap((library) => {
    const files = yamlFiles(library);
    return files
      .filter((f) => f.path.endsWith('/.kyverno-test/kyverno-test.yaml'))
      .map((test) => {
        const folder = test.path.slice(0, -'/.kyverno-test/kyverno-test.yaml'.length);
        const own = files.filter((f) => f.path.startsWith(`${folder}/`));
        return { folder: relative(ROOT, folder), files: Object.fromEntries(own.map((f) => [relative(ROOT, f.path), readFileSync(f.path, 'utf8')])) };
      });
  });
}

/** A file's documents, one of them changed or not (70 %), and the file written back; what was done. */
function broken(rng: Prng, text: string): { text: string; changes: string[] } {
  const documents = parseAllDocuments(text).map((d) => d.toJS() as unknown);
  const changes = documents.flatMap((d) => (d !== null && typeof d === 'object' && rng.chance(0.7) ? breakDocument(rng, d as Record<string, any>) : []));
  return { text: documents.map((d) => stringify(d)).join('---\n'), changes };
}

describe('amender test on broken test folders', () => {
  const folders = testFolders();

  it.each(SEEDS.map((seed) => [seed]))(`ends ${CASES_PER_SEED} runs of seed %i with a verdict or a message, never an internal error`, async (seed) => {
    expect(folders.length).toBeGreaterThan(40);
    const rng = new Prng(seed);
    const failures: string[] = [];
    const codes: Record<number, number> = {};
    for (let i = 0; i < CASES_PER_SEED && failures.length < 10; i++) {
      const { folder, files } = folders[rng.int(folders.length)];
      const names = Object.keys(files);
      const target = names[rng.int(names.length)];
      const { text, changes } = broken(rng, files[target]);
      const io = fakeIO({ ...files, [target]: text });
      const label = `seed ${seed} case ${i}: ${target}: ${changes.join('; ') || 'unchanged'}`;
      try {
        const code = await runCli(['test', folder], io);
        codes[code] = (codes[code] ?? 0) + 1;
        const shown = `${label}\n  exit ${code}\n  ${io.stderr.slice(0, 600)}`;
        expect(io.stderr + io.stdout, shown).not.toContain('internal error');
        expect([0, 1], shown).toContain(code);
        expect(/Test Summary: \d+ tests passed and \d+ tests failed/.test(io.stdout) || io.stderr.startsWith('amender test: '), shown).toBe(true);
      } catch (err) {
        failures.push(String((err as Error).message).split('\n').slice(0, 5).join('\n'));
      }
    }
    expect(failures.join('\n\n')).toBe('');
    // Not a vacuous sweep: some runs pass, some fail.
    expect(codes[0] ?? 0, JSON.stringify(codes)).toBeGreaterThan(CASES_PER_SEED / 20);
    expect(codes[1] ?? 0, JSON.stringify(codes)).toBeGreaterThan(CASES_PER_SEED / 20);
  }, 120_000);
});

/** The commands run on a policy file p.yaml and a resource file r.yaml. */
const COMMANDS = [
  ['apply', '--policies', 'p.yaml', '--resource', 'r.yaml'],
  ['apply', '--policies', 'p.yaml', '--resource', 'r.yaml', '--patch'],
  ['apply', '--policies', 'p.yaml', '--resource', 'r.yaml', '--operation', 'UPDATE'],
  ['validate', 'p.yaml'],
  ['webhook-config', '--policies', 'p.yaml', '--url', 'https://amender.example/mutate'],
];

describe('amender apply, validate and webhook-config on a broken policy or resource', () => {
  const all = LIBRARIES.flatMap((library) => yamlFiles(library));
  const policies = all.filter((f) => !f.inTestFolder).map((f) => f.path);
  const resources = all.filter((f) => f.inTestFolder && /\/resource[^/]*\.yaml$/.test(f.path)).map((f) => f.path);

  it.each(SEEDS.map((seed) => [seed]))(`ends ${CASES_PER_SEED} commands of seed %i with a verdict or a message, never an internal error`, async (seed) => {
    expect(policies.length).toBeGreaterThan(60);
    const rng = new Prng(seed);
    const failures: string[] = [];
    const codes: Record<string, number> = {};
    for (let i = 0; i < CASES_PER_SEED && failures.length < 10; i++) {
      const files: Record<string, string> = { 'p.yaml': readFileSync(policies[rng.int(policies.length)], 'utf8'), 'r.yaml': readFileSync(resources[rng.int(resources.length)], 'utf8') };
      const target = rng.chance(0.5) ? 'p.yaml' : 'r.yaml';
      const { text, changes } = broken(rng, files[target]);
      files[target] = text;
      const command = COMMANDS[rng.int(COMMANDS.length)];
      const io = fakeIO(files);
      const label = `seed ${seed} case ${i}: ${command.join(' ')}: ${target}: ${changes.join('; ') || 'unchanged'}`;
      try {
        const code = await runCli(command, io);
        codes[`${command[0]} ${code}`] = (codes[`${command[0]} ${code}`] ?? 0) + 1;
        const shown = `${label}\n  exit ${code}\n  ${io.stderr.slice(0, 600)}`;
        expect(io.stderr + io.stdout, shown).not.toContain('internal error');
        expect([0, 1], shown).toContain(code);
        if (code === 1) expect(io.stderr, shown).not.toBe('');
      } catch (err) {
        failures.push(String((err as Error).message).split('\n').slice(0, 5).join('\n'));
      }
    }
    expect(failures.join('\n\n')).toBe('');
    // Not a vacuous sweep: each command both succeeds and refuses.
    for (const name of ['apply', 'validate', 'webhook-config']) for (const code of [0, 1]) expect(codes[`${name} ${code}`] ?? 0, JSON.stringify(codes)).toBeGreaterThan(0);
  }, 120_000);
});
