/**
 * A seeded, bounded fuzz sweep of Kyverno's JMESPath: real expressions (go-jmespath's compliance cases
 * recorded in the oracle file, and every `{{ … }}` variable and `jmesPath` entry of the kyverno/policies
 * library copies, the Kyverno fixtures and the bundled examples) damaged in one to three places, then
 * evaluated against the oracle's documents and a Pod review's context, under a review guard.
 *
 * Whatever the text: a JSON value (which Kyverno's substitution can print), a JmesPathError with a bounded
 * message, or the guard's ReviewAborted; never another error (a TypeError, a stack overflow); and the same
 * answer when the expression comes again (through the compile cache) as when compiled afresh.
 *
 * Fixed seeds: a failure names its seed and expression. FUZZ_JMESPATH_SEEDS=1,2,3 and FUZZ_JMESPATH_CASES=n
 * sweep more.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReviewAborted, ReviewGuard } from '../../src/guard/index.js';
import type { JsonValue } from '../../src/json/index.js';
import { compileFresh, evaluate, goJsonStringify, JmesPathError, type EvaluationResult } from '../../src/kyverno/jmespath/index.js';
import { ROOT } from '../node/built.js';
import { KYVERNO_FIXTURES, LIBRARIES, reviewOf, yamlFiles, yamlObjects } from './helpers/library-corpus.js';
import { Prng, seedsFrom } from './helpers/prng.js';
import { damagedText } from './helpers/text-damage.js';

const SEEDS = seedsFrom(process.env.FUZZ_JMESPATH_SEEDS, [0x13e5]);
const CASES_PER_SEED = Number(process.env.FUZZ_JMESPATH_CASES ?? 10000);
/** A message longer than this for a given expression would flood a policy report or a log line. */
const MESSAGE_BOUND = (expression: string): number => 2 * expression.length + 2000;

const TOKENS = [
  '[', ']', '{', '}', '(', ')', '.', ',', ':', '|', '||', '&&', '!', '*', '[]', '[*]', '[?', '@', '&', '`', "'", '"', '\\', '==', '!=', '<', '>=',
  '-1', '0', '1e309', '`1e400`', '`{"a":', '`[', '$', '\n', '\u0000', '\ud800', '[::-1]', '[0:', '[-1]', '.*', '"__proto__"', 'constructor',
  'length(', 'to_string(', 'to_number(', 'merge(', 'sort_by(', 'max_by(', 'min_by(', 'join(', 'split(', 'contains(', 'map(&', 'sum(', 'reverse(',
  'regex_match(', 'regex_replace_all(', 'pattern_match(', 'random(', 'time_add(', 'time_parse(', 'time_since(', 'x509_decode(', 'base64_decode(',
  'parse_yaml(', 'parse_json(', 'items(', 'lookup(', 'object_from_lists(', 'truncate(', 'divide(', 'modulo(', 'multiply(', 'semver_compare(',
  'path_canonicalize(', 'label_match(', 'image_normalize(', 'to_upper(', 'trim_prefix(', 'sha256(', 'request.object', 'element', 'elementIndex',
];

/** Every JMESPath text of a parsed policy: the inside of each `{{ … }}` and each `jmesPath` entry. */
function expressionsOf(value: unknown, out: string[]): void {
  if (typeof value === 'string') for (const m of value.matchAll(/\{\{-?\s*(.*?)\s*\}\}/gs)) out.push(m[1]);
  else if (Array.isArray(value)) for (const v of value) expressionsOf(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'jmesPath' && typeof v === 'string') out.push(v);
      else expressionsOf(v, out);
    }
  }
}

function isJson(v: unknown, depth = 0): boolean {
  if (depth > 200) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJson(x, depth + 1));
  if (typeof v === 'object') return Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null ? Object.values(v as object).every((x) => isJson(x, depth + 1)) : false;
  return false;
}

type Outcome = 'value' | 'error' | 'aborted';

/** What evaluating `expression` gave, or why that breaks the module's contract. */
function outcomeOf(expression: string, data: JsonValue, compiled: 'cached' | 'fresh'): { outcome: Outcome; summary: string } | { broken: string } {
  const options = { now: () => 1_700_000_000_000, random: () => 0.5, guard: new ReviewGuard({ deadlineMs: 2_000, maxValueBytes: 1 << 20 }) };
  let result: EvaluationResult;
  try {
    if (compiled === 'cached') result = evaluate(expression, data, options);
    else {
      try {
        result = { ok: true, value: compileFresh(expression).search(data, options) };
      } catch (e) {
        if (!(e instanceof JmesPathError)) throw e;
        result = { ok: false, error: e };
      }
    }
  } catch (e) {
    if (e instanceof ReviewAborted) return { outcome: 'aborted', summary: e.reason };
    return { broken: `threw ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message ?? e).slice(0, 300)}` };
  }
  if (!result.ok) {
    if (!(result.error instanceof JmesPathError)) return { broken: `failed with a ${String((result.error as Error)?.constructor?.name)}` };
    const message = result.error.message;
    if (typeof message !== 'string' || message.length > MESSAGE_BOUND(expression)) return { broken: `a message of ${String(message?.length)} characters` };
    return { outcome: 'error', summary: `${result.error.kind}: ${message}` };
  }
  if (!isJson(result.value)) return { broken: `a value that is not JSON: ${String(result.value).slice(0, 100)}` };
  try {
    return { outcome: 'value', summary: goJsonStringify(result.value) };
  } catch (e) {
    return { broken: `a value Kyverno's substitution cannot print: ${String(e).slice(0, 200)}` };
  }
}

describe('damaged JMESPath expressions, evaluated under a review guard', () => {
  const oracle = JSON.parse(readFileSync(join(ROOT, 'test/kyverno/jmespath/oracle/go-jmespath-oracle.json'), 'utf8')) as { docs: Record<string, JsonValue>; cases: { expression: string }[] };
  const corpus = oracle.cases.map((c) => c.expression);
  for (const dir of [...LIBRARIES, KYVERNO_FIXTURES, join(ROOT, 'policies')]) for (const file of yamlFiles(dir)) for (const doc of yamlObjects(file.path)) expressionsOf(doc, corpus);
  const pod = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8')).request.object;
  const documents: JsonValue[] = [...Object.values(oracle.docs), { request: reviewOf(pod).request, element: pod.spec.containers[0], elementIndex: 0, serviceAccountName: 'default' }];

  it.each(SEEDS.map((seed) => [seed]))(`gives each of ${CASES_PER_SEED} damaged expressions of seed %i a value, a JMESPath error or a guard's stop, the same twice`, (seed) => {
    expect(corpus.length).toBeGreaterThan(1450);
    const rng = new Prng(seed);
    const counts: Record<Outcome, number> = { value: 0, error: 0, aborted: 0 };
    const broken: string[] = [];
    for (let i = 0; i < CASES_PER_SEED && broken.length < 5; i++) {
      const expression = damagedText(rng, corpus[rng.int(corpus.length)], TOKENS, corpus);
      const data = documents[rng.int(documents.length)];
      const first = outcomeOf(expression, data, 'cached');
      const again = outcomeOf(expression, data, 'cached');
      const fresh = outcomeOf(expression, data, 'fresh');
      const where = `seed ${seed} case ${i}: ${JSON.stringify(expression).slice(0, 400)}`;
      if ('broken' in first) broken.push(`${where}\n  → ${first.broken}`);
      else if ('outcome' in again && 'outcome' in fresh && first.outcome !== 'aborted' && (again.summary !== first.summary || fresh.summary !== first.summary)) {
        broken.push(`${where}\n  → ${first.summary.slice(0, 200)}\n  again ${again.summary.slice(0, 200)}\n  fresh ${fresh.summary.slice(0, 200)}`);
      } else if (!('outcome' in again) || !('outcome' in fresh)) broken.push(`${where}\n  → again or fresh: ${'broken' in again ? again.broken : ''} ${'broken' in fresh ? fresh.broken : ''}`);
      else counts[first.outcome]++;
    }
    expect(broken.join('\n\n')).toBe('');
    // Not a vacuous sweep: damaged expressions both fail and still evaluate.
    expect(counts.value).toBeGreaterThan(CASES_PER_SEED / 40);
    expect(counts.error).toBeGreaterThan(CASES_PER_SEED / 20);
  }, 120_000);
});
