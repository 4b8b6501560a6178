/**
 * A seeded, bounded fuzz sweep of CEL: the expressions of real policies (the MAP and MutatingPolicy vectors,
 * the bundled examples, the bench set, the MutatingPolicy library) damaged in one to three places (a token
 * of the language or of a library inserted, characters cut out, a piece of another expression spliced in)
 * and evaluated against the fixture Pod through `amender eval --batch`, in the Kubernetes environment and in
 * Kyverno's. Whatever the text, each line gets a value or a CEL error: never an internal error, and never
 * a JavaScript error's text (TypeError, a stack overflow...), which would mean the engine itself broke.
 *
 * Fixed seeds: a failure names its seed and expression. FUZZ_CEL_SEEDS=1,2,3 and FUZZ_CEL_CASES=n sweep more.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';
import { ROOT } from '../node/built.js';
import { yamlFiles, yamlObjects } from './helpers/library-corpus.js';
import { Prng, seedsFrom } from './helpers/prng.js';
import { damagedText } from './helpers/text-damage.js';

const SEEDS = seedsFrom(process.env.FUZZ_CEL_SEEDS, [0xce1]);
const CASES_PER_SEED = Number(process.env.FUZZ_CEL_CASES ?? 1500);
const CORPUS = ['test/vectors/map', 'test/vectors/mpol', 'policies', 'bench/fixtures/policies-50', 'test/kyverno-library-mpol'];
/** What a broken engine says, as opposed to a CEL error. */
const ENGINE_FAILURE = /internal error|TypeError|RangeError|ReferenceError|of undefined|of null|is not a function|Cannot read|Maximum call stack/;

const TOKENS = [
  '(', ')', '[', ']', '{', '}', '.', ',', '?', ':', '!', '-', '+', '*', '/', '%', '==', '!=', '<', '<=', '&&', '||', ' in ', '"', "'", '`', '\\', '\n', '\u0000', '\ud800',
  '0', '1u', '1.0', '-9223372036854775808', '18446744073709551615u', 'b"x"', 'r"x"', "'''", 'null', 'true',
  'dyn(', 'type(', 'int(', 'uint(', 'double(', 'string(', 'bytes(', 'duration(', 'timestamp(', 'has(',
  '.all(x, ', '.exists(x, ', '.map(x, ', '.filter(x, ', '.exists_one(x, ', '.transformList(', '.transformMap(',
  'object', 'oldObject', 'request', 'params', 'variables.', 'Object{', 'JSONPatch{', 'optional.of(', '.?', '[?', '.orValue(',
  'quantity(', 'ip(', 'cidr(', 'url(', 'semver(', '.matches(', '.find(', 'format.named(', 'sets.contains(', '.sort()', '.flatten()', 'lists.range(',
  'math.', 'strings.', 'base64.', 'json.', 'yaml.', 'image(', 'x509.', 'jsonpatch.escapeKey(', 'authorizer.',
];

/** Every `expression` and `messageExpression` text in a parsed document. */
function expressionsOf(value: unknown, out: string[]): void {
  if (Array.isArray(value)) for (const v of value) expressionsOf(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if ((key === 'expression' || key === 'messageExpression') && typeof v === 'string') out.push(v);
      else expressionsOf(v, out);
    }
  }
}

describe('damaged CEL expressions through amender eval --batch', () => {
  const corpus: string[] = [];
  for (const dir of CORPUS) for (const file of yamlFiles(join(ROOT, dir))) for (const doc of yamlObjects(file.path)) expressionsOf(doc, corpus);
  const review = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8')).request;
  const bindings = { object: review.object, oldObject: null, request: { operation: 'CREATE', namespace: 'default', name: 'x', userInfo: { username: 'u' } } };

  it.each(SEEDS.map((seed) => [seed]))(`gives each of ${CASES_PER_SEED} damaged expressions of seed %i a value or a CEL error, in both environments`, async (seed) => {
    expect(corpus.length).toBeGreaterThan(300);
    const rng = new Prng(seed);
    const expressions = Array.from({ length: CASES_PER_SEED }, () => damagedText(rng, corpus[rng.int(corpus.length)], TOKENS, corpus));
    const input = expressions.map((expression) => JSON.stringify({ expression, bindings })).join('\n') + '\n';
    for (const environment of [[], ['--kyverno']]) {
      const io = fakeIO({}, input);
      expect(await runCli(['eval', '--batch', '--cost', ...environment], io)).toBe(0);
      const results = io.stdout.trim().split('\n').map((line) => JSON.parse(line) as { value?: unknown; error?: string });
      expect(results).toHaveLength(CASES_PER_SEED);
      const broken = results.flatMap((r, i) => (r.error !== undefined && ENGINE_FAILURE.test(r.error) ? [`seed ${seed} ${environment.join('') || 'kubernetes'}: ${expressions[i]}\n  → ${r.error.slice(0, 300)}`] : []));
      expect(broken.slice(0, 5).join('\n\n')).toBe('');
      // Not a vacuous sweep: some damaged expressions still evaluate.
      expect(results.filter((r) => r.error === undefined).length).toBeGreaterThan(CASES_PER_SEED / 50);
    }
  }, 120_000);
});
