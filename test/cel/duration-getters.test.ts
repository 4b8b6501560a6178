/**
 * Duration getters as cel-go computes them (common/types/duration.go: Go's Duration.Hours, Minutes,
 * Seconds, Milliseconds, each the whole duration truncated toward zero), which is what kube-apiserver
 * evaluates; cel-go's own test TestDefaultUTCTimeZoneExtension reads 7235s as 2 h, 120 min, 7235 s,
 * 7235000 ms. cel-spec's conformance test get_milliseconds (skipped by cel-go) wants the milliseconds
 * within the second instead: the general environment keeps that unless told otherwise.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironment, Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression } from '../../src/cel/index.js';

function admission(expr: string): unknown {
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) throw new Error(c.message);
  const r = new Evaluation({ object: { spec: { timeout: '1m30.25s' } } }, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c.compiled);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

function general(env: CelEnvironment, expr: string): unknown {
  const c = env.compile(expr, { check: true });
  if (!c.ok) throw new Error(c.message);
  const r = c.program.evaluate();
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe('duration getters in the admission environment (cel-go)', () => {
  const cases: [string, bigint][] = [
    ["duration('7235s').getHours()", 2n],
    ["duration('7235s').getMinutes()", 120n],
    ["duration('7235s').getSeconds()", 7235n],
    ["duration('7235s').getMilliseconds()", 7235000n],
    ["duration('1.5s').getMilliseconds()", 1500n],
    ["duration('-1.5s').getMilliseconds()", -1500n],
    ["duration('999us').getMilliseconds()", 0n],
    ["duration(object.spec.timeout).getMilliseconds()", 90250n],
  ];
  for (const [expr, want] of cases) it(expr, () => expect(admission(expr)).toBe(want));
});

describe('duration.getMilliseconds() in the general environment', () => {
  it('is the milliseconds within the second by default (cel-spec)', () => {
    const env = new CelEnvironment();
    expect(general(env, "duration('123.321456789s').getMilliseconds()")).toBe(321n);
    expect(general(env, "duration('-1.5s').getMilliseconds()")).toBe(-500n);
  });
  it('is the whole duration with durationMillisecondsComponent: false (cel-go)', () => {
    const env = new CelEnvironment({ durationMillisecondsComponent: false });
    expect(general(env, "duration('123.321456789s').getMilliseconds()")).toBe(123321n);
  });
});
