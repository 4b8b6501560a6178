/**
 * Kyverno's parse_yaml (JMESPath) and yaml.parse (CEL) read text from the review, and the `yaml` package
 * takes seconds over a few MB of it (a 3.5 MB mapping of 300,000 keys: 5.8 s), all of it within one call
 * that never looked at the review's deadline. The lexer now ticks the review guard once per lexeme, so the
 * deadline stops the parse and the rule fails by its policy's failurePolicy. Counted, not timed: a guard
 * whose clock advances one unit per read trips after so many reads.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation } from '../../src/cel/index.js';
import { ReviewAborted, ReviewGuard, TICKS_PER_CHECK } from '../../src/guard/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { pod, podRequest } from '../kyverno/helpers/requests.js';

/** A guard whose clock advances 1 per reading, and how many readings it had. */
function steppingGuard(deadlineReads: number): { guard: ReviewGuard; reads: () => number } {
  let now = 0;
  const guard = new ReviewGuard({ deadlineMs: deadlineReads, maxValueBytes: 6 << 20, now: () => now++ });
  return { guard, reads: () => now };
}

/** A YAML mapping of `keys` lines: about four lexemes each. */
const mapping = (keys: number) => Array.from({ length: keys }, (_, i) => `k${i}: ${i}`).join('\n');

const subject = () => {
  const p = pod('web', ['app']);
  (p.metadata as Record<string, unknown>).annotations = { config: mapping(20_000) };
  return p;
};

const policy = (failurePolicy: 'Fail' | 'Ignore') => {
  const compiled = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'read-config', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      failurePolicy,
      rules: [
        {
          name: 'count',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { keys: '{{ length(keys(parse_yaml(request.object.metadata.annotations.config))) }}' } } } },
        },
      ],
    },
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  return compiled.policy;
};

describe('parse_yaml of review text under the review deadline', () => {
  it('reads the clock as it parses: one read per TICKS_PER_CHECK lexemes', async () => {
    const { guard, reads } = steppingGuard(Number.MAX_SAFE_INTEGER);
    const result = await runKyvernoPolicies([policy('Fail')], { request: podRequest(subject()), guard });
    expect(result.changed).toBe(true);
    expect(((result.object as Record<string, any>).metadata.labels as Record<string, unknown>).keys).toBe(20_000);
    expect(reads()).toBeGreaterThanOrEqual(Math.floor((20_000 * 4) / TICKS_PER_CHECK));
  });

  it('stops at the deadline inside the parse: Fail denies naming the policy and the deadline', async () => {
    const { guard, reads } = steppingGuard(100);
    const result = await runKyvernoPolicies([policy('Fail')], { request: podRequest(subject()), guard });
    expect(result.changed).toBe(false);
    expect(result.policies[0]).toMatchObject({ policy: 'ClusterPolicy/read-config', status: 'error', aborted: 'deadline' });
    expect(result.rejection?.message).toMatch(/ClusterPolicy\/read-config.*deadline exceeded/);
    expect(reads()).toBeLessThan(150);
  });

  it('Ignore: the Pod is admitted unchanged', async () => {
    const { guard } = steppingGuard(100);
    const result = await runKyvernoPolicies([policy('Ignore')], { request: podRequest(subject()), guard });
    expect(result.changed).toBe(false);
    expect(result.rejection).toBeUndefined();
    expect(result.policies[0]).toMatchObject({ status: 'error', aborted: 'deadline', failurePolicy: 'Ignore' });
  });
});

describe('yaml.parse (Kyverno CEL) of review text under the review deadline', () => {
  const run = (guard: ReviewGuard) => {
    const r = compileExpression('yaml.parse(object.metadata.annotations.config).size()', 'variable', { params: false, dialect: 'kyverno' });
    if (!r.ok) throw new Error(r.message);
    return new Evaluation({ object: subject() as never }, { budget: 10_000_000, guard }).evaluate(r.compiled);
  };

  it('parses within the deadline', () => {
    const out = run(steppingGuard(Number.MAX_SAFE_INTEGER).guard);
    expect(out).toMatchObject({ ok: true, value: 20_000n });
  });

  it("stops at the deadline inside the parse with the guard's ReviewAborted", () => {
    const { guard, reads } = steppingGuard(100);
    expect(() => run(guard)).toThrow(ReviewAborted);
    expect(guard.aborted?.reason).toBe('deadline');
    expect(reads()).toBeLessThan(150);
  });
});
