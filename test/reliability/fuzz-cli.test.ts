/**
 * A seeded, bounded fuzz sweep of the CLI on broken files, run as a user runs it (helpers/document-mutations.ts
 * changes a file's documents in one to three places):
 *  - `amender test` on a kyverno/policies library folder (its policy, kyverno-test.yaml, resources, patched
 *    resources, values) with one of its YAML files broken;
 *  - `amender apply` (as a resource, as a patch, as an UPDATE), `validate` and `webhook-config` on a library
 *    policy and a test resource, one of the two broken;
 *  - the same on a policy file whose text is damaged in one to four places: YAML syntax (tabs, flow and block
 *    markers, anchors, aliases, tags, directives, document markers), control characters, a BOM, a lone
 *    surrogate, characters cut out or repeated;
 *  - every command on a working command line damaged in one to three places: an argument dropped, repeated,
 *    replaced or inserted (other commands' options, `--`, `-`, empty, out-of-range numbers, NUL, `__proto__`).
 * Whatever the change, the command ends with a verdict or a message: exit 0 or 1 (2 for a wrong command
 * line, with the usage), never an internal error, never a throw.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_CLI_SEEDS=1,2,3 and FUZZ_CLI_CASES=n sweep more.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO, type FakeIO } from '../cli/fake-io.js';
import { ROOT } from '../node/built.js';
import { breakDocument } from './helpers/document-mutations.js';
import { LIBRARIES, libraryResources, yamlFiles } from './helpers/library-corpus.js';
import { Prng, seedsFrom } from './helpers/prng.js';

const SEEDS = seedsFrom(process.env.FUZZ_CLI_SEEDS, [0x7e57]);
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

/** The commands run on a policy file p.yaml and a resource file r.yaml. */
const COMMANDS = [
  ['apply', '--policies', 'p.yaml', '--resource', 'r.yaml'],
  ['apply', '--policies', 'p.yaml', '--resource', 'r.yaml', '--patch'],
  ['apply', '--policies', 'p.yaml', '--resource', 'r.yaml', '--operation', 'UPDATE'],
  ['validate', 'p.yaml'],
  ['webhook-config', '--policies', 'p.yaml', '--url', 'https://amender.example/mutate'],
];
/** apply, validate and webhook-config, each once. */
const TEXT_COMMANDS = COMMANDS.filter((c) => !c.includes('--patch') && !c.includes('--operation'));

/** What a damaged text gets inserted: YAML's own syntax, control characters and values YAML reads specially. */
const INSERTS = ['\t', '\u0000', '\u2028', ':', ': ', '- ', '{', '}', '[', ']', '&a ', '*a', '!', '!!binary ', '!!str ', '!!int ', '!!map ', '%YAML 1.1\n', '---\n', '...\n', '|', '>', '<<: *a\n', '#', '"', "'", '\n', '  ', '?', ',', '@', '`', '\ufeff', '\ud800', '0x1F', '1e999', '.inf', 'yes', 'null', '~', '=', '<<', '\r'];

/** `text` damaged in one to four places (an insertion, a cut, a run repeated); says where. */
function damaged(rng: Prng, text: string): { text: string; changes: string[] } {
  const changes: string[] = [];
  for (let n = 1 + rng.int(4); n > 0; n--) {
    const at = rng.int(text.length + 1);
    const kind = rng.int(3);
    if (kind === 0) {
      const insert = INSERTS[rng.int(INSERTS.length)];
      text = text.slice(0, at) + insert + text.slice(at);
      changes.push(`insert ${JSON.stringify(insert)} at ${at}`);
    } else if (kind === 1) {
      const length = 1 + rng.int(5);
      text = text.slice(0, at) + text.slice(at + length);
      changes.push(`cut ${length} at ${at}`);
    } else {
      const length = 1 + rng.int(20);
      text = text.slice(0, at) + text.slice(at, at + length).repeat(2) + text.slice(at + length);
      changes.push(`repeat ${length} at ${at}`);
    }
  }
  return { text, changes };
}

interface CliCase {
  command: string[];
  files: Record<string, string>;
  /** Standard input (default: none). */
  stdin?: string;
  /** What was broken, for a failure's message. */
  label: string;
  /** The exit codes it may end with (default 0 and 1: a verdict or a message). */
  exits?: readonly number[];
  /** More to expect of this case's outcome. */
  check?: (code: number, io: FakeIO, shown: string) => void;
}

/**
 * Runs CASES_PER_SEED cases of `seed` through the CLI: each ends with one of its exits (0 or 1 unless it
 * says) and no internal error (failures collected, at most ten, then shown together). Returns the exits
 * counted by command.
 */
async function runCases(seed: number, next: (rng: Prng) => CliCase): Promise<Record<string, number>> {
  const rng = new Prng(seed);
  const failures: string[] = [];
  const codes: Record<string, number> = {};
  for (let i = 0; i < CASES_PER_SEED && failures.length < 10; i++) {
    const c = next(rng);
    const io = fakeIO(c.files, c.stdin);
    try {
      const code = await runCli(c.command, io);
      codes[`${c.command[0]} ${code}`] = (codes[`${c.command[0]} ${code}`] ?? 0) + 1;
      const shown = `seed ${seed} case ${i}: ${c.command.join(' ')}: ${c.label}\n  exit ${code}\n  ${io.stderr.slice(0, 600)}`;
      expect(io.stderr + io.stdout, shown).not.toContain('internal error');
      expect(c.exits ?? [0, 1], shown).toContain(code);
      c.check?.(code, io, shown);
    } catch (err) {
      failures.push(String((err as Error).message).split('\n').slice(0, 5).join('\n'));
    }
  }
  expect(failures.join('\n\n')).toBe('');
  return codes;
}

/** Not a vacuous sweep: each command named both succeeded and refused. */
function expectBothOutcomes(codes: Record<string, number>, commands: readonly string[]): void {
  for (const name of commands) for (const code of [0, 1]) expect(codes[`${name} ${code}`] ?? 0, JSON.stringify(codes)).toBeGreaterThan(0);
}

describe('amender test on broken test folders', () => {
  const folders = testFolders();

  it.each(SEEDS.map((seed) => [seed]))(`ends ${CASES_PER_SEED} runs of seed %i with a verdict or a message, never an internal error`, async (seed) => {
    expect(folders.length).toBeGreaterThan(40);
    const codes = await runCases(seed, (rng) => {
      const { folder, files } = folders[rng.int(folders.length)];
      const names = Object.keys(files);
      const target = names[rng.int(names.length)];
      const { text, changes } = broken(rng, files[target]);
      return {
        command: ['test', folder],
        files: { ...files, [target]: text },
        label: `${target}: ${changes.join('; ') || 'unchanged'}`,
        check: (_, io, shown) => expect(/Test Summary: \d+ tests passed and \d+ tests failed/.test(io.stdout) || io.stderr.startsWith('amender test: '), shown).toBe(true),
      };
    });
    expectBothOutcomes(codes, ['test']);
  }, 120_000);
});

describe('amender apply, validate and webhook-config on a broken policy or resource', () => {
  const all = LIBRARIES.flatMap((library) => yamlFiles(library));
  const policies = all.filter((f) => !f.inTestFolder).map((f) => f.path);
  const resources = all.filter((f) => f.inTestFolder && /\/resource[^/]*\.yaml$/.test(f.path)).map((f) => f.path);

  it.each(SEEDS.map((seed) => [seed]))(`ends ${CASES_PER_SEED} commands of seed %i with a verdict or a message, never an internal error`, async (seed) => {
    expect(policies.length).toBeGreaterThan(60);
    const codes = await runCases(seed, (rng) => {
      const files: Record<string, string> = { 'p.yaml': readFileSync(policies[rng.int(policies.length)], 'utf8'), 'r.yaml': readFileSync(resources[rng.int(resources.length)], 'utf8') };
      const target = rng.chance(0.5) ? 'p.yaml' : 'r.yaml';
      const { text, changes } = broken(rng, files[target]);
      return {
        command: COMMANDS[rng.int(COMMANDS.length)],
        files: { ...files, [target]: text },
        label: `${target}: ${changes.join('; ') || 'unchanged'}`,
        check: (code, io, shown) => code === 1 && expect(io.stderr, shown).not.toBe(''),
      };
    });
    expectBothOutcomes(codes, ['apply', 'validate', 'webhook-config']);
  }, 120_000);
});

describe('amender validate, apply and webhook-config on a policy file with damaged text', () => {
  const policies = LIBRARIES.flatMap((library) => yamlFiles(library)).filter((f) => !f.inTestFolder).map((f) => f.path);
  const pods = libraryResources().filter((o) => o.kind === 'Pod').map((o) => stringify(o));

  it.each(SEEDS.map((seed) => [seed]))(`ends ${CASES_PER_SEED} commands of seed %i with a verdict or a message, never an internal error`, async (seed) => {
    const codes = await runCases(seed, (rng) => {
      const { text, changes } = damaged(rng, readFileSync(policies[rng.int(policies.length)], 'utf8'));
      return { command: TEXT_COMMANDS[rng.int(TEXT_COMMANDS.length)], files: { 'p.yaml': text, 'r.yaml': pods[rng.int(pods.length)] }, label: changes.join('; ') };
    });
    // apply refuses (exit 1) only a denied request, which damaged text seldom makes: it must have run.
    expectBothOutcomes(codes, ['validate', 'webhook-config']);
    expect((codes['apply 0'] ?? 0) + (codes['apply 1'] ?? 0)).toBeGreaterThan(0);
  }, 120_000);
});

/** Working command lines of every command, on the files of ARGV_FILES; stdin for those that read it. */
const ARGV_BASES: { argv: string[]; stdin?: string }[] = [
  { argv: ['review', '--policies', 'p.yaml', '--input', 'review.json'] },
  { argv: ['review', '--policies', 'p.yaml', '--quiet'], stdin: 'review' },
  { argv: ['apply', '--policies', 'p.yaml', '--resource', 'r.yaml', '--operation', 'UPDATE', '--old', 'r.yaml', '--user', 'alice', '--group', 'dev', '--namespace', 'shop'] },
  { argv: ['apply', '--policies', 'p.yaml', '--resource', '-', '--patch', '--set', 'request.operation=CREATE'], stdin: 'resource' },
  { argv: ['test', 't', '--detailed-results', '--fail-only'] },
  { argv: ['test', 't', '-o', 'junit', '--output-file', 'out.xml', '--test-case-selector', 'policy=p,rule=r,resource=x'] },
  { argv: ['validate', 'p.yaml', 't'] },
  { argv: ['eval', '--expression', 'object.metadata.name', '--bindings', 'b.yaml', '--role', 'variable', '--cost'] },
  { argv: ['eval', '--batch', '--kyverno'], stdin: 'batch' },
  { argv: ['webhook-config', '--url', 'https://amender.example/mutate', '--policies', 'p.yaml', '--name', 'amender', '--failure-policy', 'Ignore', '--timeout-seconds', '5', '--review-deadline-ms', '4000', '--reinvocation-policy', 'IfNeeded', '--exclude-namespace', 'kube-system', '--json'] },
  { argv: ['hash-secret'], stdin: 'secret' },
];
const ODD_ARGS = ['', '-', '--', '---', '-x', '--x', '--help', '-h', '--policies', '--policies=p.yaml', '--resource', '--input', '--operation', 'DELETE', 'CONNECT', 'create', '--old', '--set', 'a=', '=b', 'a.b.c=1,2', '--values-file', 'p.yaml', 'missing.yaml', 't', '.', '/', '--timeout-seconds', '0', '-1', '31', '1e3', '99999999999999999999', 'NaN', '--url', 'http://x/mutate', 'https://x/mutate?q=1', 'https://', '--role', 'jsonPatch', 'applyConfiguration', 'matchCondition', 'bogus', '--expression', '(', '\u0000', '\ud800', 'x'.repeat(5000), '__proto__', '-o', 'junit', 'json', '--output-file', '--file-name', 'kyverno-test.yaml'];

describe('every command on a damaged command line', () => {
  const policy = readFileSync(`${ROOT}policies/default-labels.yaml`, 'utf8');
  const pod = libraryResources().find((o) => o.kind === 'Pod')!;
  const review = readFileSync(`${ROOT}test/fixtures/reviews/pod-create.json`, 'utf8');
  const files: Record<string, string> = {
    'p.yaml': policy,
    'r.yaml': stringify(pod),
    'review.json': review,
    'b.yaml': stringify({ object: pod }),
    't/amender-test.yaml': readFileSync(`${ROOT}policies/tests/default-labels/amender-test.yaml`, 'utf8').replace('../../default-labels.yaml', '../p.yaml'),
  };
  const stdins: Record<string, string> = { review, resource: stringify(pod), batch: `${JSON.stringify({ expression: '1 + 1' })}\n`, secret: 'a-long-enough-secret-for-a-cluster-0123456789' };

  it.each(SEEDS.map((seed) => [seed]))(`ends ${CASES_PER_SEED} command lines of seed %i with a verdict or a message, never an internal error`, async (seed) => {
    const codes = await runCases(seed, (rng) => {
      const base = rng.pick(ARGV_BASES);
      const argv = [...base.argv];
      for (let n = 1 + rng.int(3); n > 0; n--) {
        const at = 1 + rng.int(argv.length); // the command name stays
        const kind = rng.int(4);
        if (kind === 0 && argv.length > 1) argv.splice(Math.min(at, argv.length - 1), 1);
        else if (kind === 1) argv.splice(at, 0, rng.pick(ODD_ARGS));
        else if (kind === 2 && argv.length > 1) argv.splice(at, 0, argv[Math.min(at, argv.length - 1)]);
        else argv[Math.min(at, argv.length - 1)] = rng.pick(ODD_ARGS);
      }
      return {
        command: argv,
        files,
        ...(base.stdin ? { stdin: stdins[base.stdin] } : {}),
        label: JSON.stringify(argv).slice(0, 400),
        exits: [0, 1, 2],
        check: (code, io, shown) => {
          // A usage error names the command (apply's --old, checked against the resources read, comes after the set's warnings).
          if (code === 2) expect(io.stderr, shown).toMatch(/^amender( [a-z-]+)?: /m);
          if (code !== 0) expect(io.stderr.length + io.stdout.length, shown).toBeGreaterThan(0);
        },
      };
    });
    // Not a vacuous sweep: damaged command lines both run and are refused as usage errors.
    const exits = (code: number) => Object.entries(codes).reduce((sum, [key, n]) => sum + (key.endsWith(` ${code}`) ? n : 0), 0);
    for (const code of [0, 2]) expect(exits(code), JSON.stringify(codes)).toBeGreaterThan(CASES_PER_SEED / 20);
  }, 120_000);
});
