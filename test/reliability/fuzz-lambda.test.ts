/**
 * A seeded, bounded fuzz sweep of the built Lambda handler (dist/lambda, in a child process that invokes it
 * as the Lambda runtime does): events of every shape it serves (Function URL and HTTP API payload 2.0, REST
 * API payload 1.0, an Application Load Balancer with and without multi-value headers; bodies plain and
 * base64) for a review, the probes and the metrics, each changed in one to three places: a member deleted,
 * retyped, duplicated or given an odd text (the headers, the request context, the path, the method, the
 * body and its base64 flag alike).
 *
 * Whatever the event: the invocation returns (a thrown handler is an error the caller sees as a 502) a
 * result Lambda can turn into an HTTP response (an integer status, text headers, a text body, valid base64
 * when it says so) whose status is below 500. Afterwards the function answers a review as before, and its
 * log has no error and no stack.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_LAMBDA_SEEDS=1,2,3 and FUZZ_LAMBDA_CASES=n sweep more.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../node/built.js';
import type { HttpCase } from '../runtimes/helpers.js';
import { albEvent, functionUrlEvent, httpApiEvent, restApiEvent, resultReply, startLambda, type LambdaProcess, type LambdaResult } from '../runtimes/lambda.js';
import { breakDocument } from './helpers/document-mutations.js';
import { troubleIn } from './helpers/log-trouble.js';
import { Prng, seedsFrom } from './helpers/prng.js';

const SEEDS = seedsFrom(process.env.FUZZ_LAMBDA_SEEDS, [0x1a3b]);
const CASES_PER_SEED = Number(process.env.FUZZ_LAMBDA_CASES ?? 600);

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
const CASES: HttpCase[] = [
  { name: 'review', method: 'POST', path: '/mutate', body: REVIEW, headers: { 'Content-Type': 'application/json' } },
  { name: 'review with a timeout', method: 'POST', path: '/mutate?timeout=10s', body: REVIEW, headers: { 'Content-Type': 'application/json; charset=utf-8' } },
  { name: 'health', method: 'GET', path: '/healthz' },
  { name: 'readiness', method: 'GET', path: '/readyz' },
  { name: 'metrics', method: 'GET', path: '/metrics' },
];

/** Every event shape for every case, the body plain and base64. */
function baseEvents(): Record<string, unknown>[] {
  return CASES.flatMap((c) =>
    [false, true].flatMap((base64) => [functionUrlEvent(c, base64), httpApiEvent(c, 'prod', base64), httpApiEvent(c, '$default', base64), restApiEvent(c, base64), albEvent(c, false, base64), albEvent(c, true, base64)]),
  );
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Why `result` is not something Lambda turns into an HTTP response below 500, if it is not. */
function problemOf(result: LambdaResult): string | undefined {
  if (result === null || typeof result !== 'object') return `a result that is not an object: ${JSON.stringify(result)}`;
  if (!Number.isInteger(result.statusCode) || result.statusCode < 100 || result.statusCode > 599) return `status ${JSON.stringify(result.statusCode)}`;
  if (result.statusCode >= 500) return `status ${result.statusCode}: ${String(result.body).slice(0, 300)}`;
  if (result.body !== undefined && typeof result.body !== 'string') return `a body that is not text (${typeof result.body})`;
  if (result.isBase64Encoded && !BASE64.test(result.body ?? '')) return 'a body marked base64 that is not';
  for (const [name, value] of Object.entries(result.headers ?? {})) if (typeof value !== 'string') return `header ${name} is not text`;
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) return `multi-value header ${name} is not a list of text`;
  if (result.cookies !== undefined && (!Array.isArray(result.cookies) || result.cookies.some((c) => typeof c !== 'string'))) return 'cookies that are not a list of text';
  return undefined;
}

describe('damaged Lambda events against the built handler', () => {
  let lambda: LambdaProcess;
  let patchBefore: unknown;

  const review = async () => resultReply(await lambda.invoke(functionUrlEvent(CASES[0], false)));

  beforeAll(async () => {
    ensureBuilt();
    lambda = await startLambda({});
    const before = await review();
    expect(before.status).toBe(200);
    patchBefore = (before.body as { response?: { patch?: string } }).response?.patch;
    expect(patchBefore).toBeTypeOf('string');
  });
  afterAll(async () => {
    await lambda?.stop();
  });

  it.each(SEEDS.map((seed) => [seed]))(`answers each of ${CASES_PER_SEED} damaged events of seed %i with a result below 500, and keeps serving`, async (seed) => {
    const rng = new Prng(seed);
    const events = baseEvents();
    const counts = { ok: 0, refused: 0 };
    const broken: string[] = [];
    for (let i = 0; i < CASES_PER_SEED && broken.length < 5; i++) {
      const event = structuredClone(rng.pick(events));
      const changes = breakDocument(rng, event);
      const where = `seed ${seed} case ${i}: ${changes.join('; ').slice(0, 300)}`;
      let result: LambdaResult;
      try {
        result = await lambda.invoke(event);
      } catch (err) {
        broken.push(`${where}\n  → the invocation failed: ${String((err as Error).message).slice(0, 400)}`);
        continue;
      }
      const problem = problemOf(result);
      if (problem) broken.push(`${where}\n  → ${problem}`);
      else if (result.statusCode < 300) counts.ok++;
      else counts.refused++;
    }
    expect(broken.join('\n\n')).toBe('');
    // Not a vacuous sweep: damaged events are both refused and still served.
    expect(counts.ok).toBeGreaterThan(CASES_PER_SEED / 10);
    expect(counts.refused).toBeGreaterThan(CASES_PER_SEED / 20);

    const after = await review();
    expect(after.status).toBe(200);
    expect((after.body as { response?: { patch?: string } }).response?.patch).toBe(patchBefore);
    expect(troubleIn(lambda.logs)).toEqual([]);
    expect(lambda.stderr()).toBe('');
  }, 120_000);
});
