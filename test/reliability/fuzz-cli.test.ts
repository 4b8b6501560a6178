/**
 * A seeded, bounded fuzz sweep of `amender test` on broken test folders: a kyverno/policies library folder
 * (its policy, kyverno-test.yaml, resources, patched resources, values) with one of its YAML files changed
 * in one to three places (helpers/document-mutations.ts), run through the CLI as a user runs it. Whatever
 * the change, the command ends with a verdict or a message: exit 0 or 1, never an internal error, never a
 * throw, and a summary or a message naming what was wrong.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_TEST_FILE_SEEDS=1,2,3 and FUZZ_TEST_FILE_CASES=n sweep more.
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

const SEEDS = process.env.FUZZ_TEST_FILE_SEEDS ? process.env.FUZZ_TEST_FILE_SEEDS.split(',').map(Number) : [0x7e57];
const CASES_PER_SEED = Number(process.env.FUZZ_TEST_FILE_CASES ?? 300);

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
      const documents = parseAllDocuments(files[target]).map((d) => d.toJS() as unknown);
      const changes = documents.flatMap((d) => (d !== null && typeof d === 'object' && rng.chance(0.7) ? breakDocument(rng, d as Record<string, any>) : []));
      const io = fakeIO({ ...files, [target]: documents.map((d) => stringify(d)).join('---\n') });
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
