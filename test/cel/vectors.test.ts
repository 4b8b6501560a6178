/**
 * MAP CEL vectors (test/vectors/map/cel-context, cel-cost; format in shared vectors' README):
 * variables and composition, the request/namespace types, matchCondition-style budgets and cel-go's
 * runtime cost figures. Runs through the public API of src/cel.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  CompiledVariables,
  Evaluation,
  RUNTIME_CEL_COST_BUDGET,
  celToJson,
  celTypeName,
  compileExpression,
  type AdmissionInput,
} from '../../src/cel/index.js';
import { fakeAuthorizer, type FakeAuthorizerSpec } from './fake-authorizer.js';
import { matchesText } from './lib/harness.js';

const dir = (name: string) => fileURLToPath(new URL(`../vectors/map/${name}/`, import.meta.url));

interface Expect {
  value?: unknown;
  valueType?: string;
  error?: string;
  errorMatch?: 'exact' | 'regex' | 'substring';
  compileError?: string[];
  compiles?: boolean;
  totalCost?: number;
  remainingBudget?: number;
  expressionError?: string;
}

interface Vector {
  name: string;
  kind: 'cel' | 'cost';
  /** What a cost vector's expressions are compiled as (default matchCondition: boolean). */
  role?: 'matchCondition' | 'variable';
  bindings?: { request?: Record<string, unknown>; params?: unknown; namespaceObject?: unknown };
  hasParamKind?: boolean;
  variables?: { name: string; expression: string }[];
  expression?: string;
  expressions?: string[];
  cases?: { expression: string; expect: Expect }[];
  costBudget?: number;
  /** A per-expression cost limit in place of kube-apiserver's PerCallLimit (a test's testPerCallLimit). */
  perCallLimit?: number;
  authorizer?: FakeAuthorizerSpec;
  expect?: Expect;
}

function load(name: string): Vector[] {
  const out: Vector[] = [];
  for (const f of readdirSync(dir(name)).filter((x) => x.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(readFileSync(dir(name) + f, 'utf8'))) out.push(doc.toJS() as Vector);
  }
  return out;
}

function inputOf(v: Vector): AdmissionInput {
  const req = (v.bindings?.request ?? {}) as Record<string, unknown>;
  const { object, oldObject, ...request } = req;
  return {
    object: (object ?? null) as never,
    oldObject: (oldObject ?? null) as never,
    request: request as never,
    params: (v.bindings?.params ?? null) as never,
    namespaceObject: (v.bindings?.namespaceObject ?? null) as never,
    authorizer: v.authorizer ? fakeAuthorizer(v.authorizer) : undefined,
  };
}

/** Evaluates one expression of a `cel` vector as the admission plugin would (compile errors surface at evaluation). */
function evaluateCase(v: Vector, expression: string, exp: Expect): void {
  const vars = CompiledVariables.compile(v.variables ?? [], { params: v.hasParamKind ?? false });
  const compiled = compileExpression(expression, 'variable', vars.scope());
  if (exp.compileError) {
    expect(compiled.ok, `expected a compile error for ${expression}`).toBe(false);
    if (!compiled.ok) for (const re of exp.compileError) expect(compiled.message).toMatch(new RegExp(re.replace(/[()[\]]/g, '\\$&')));
    return;
  }
  if (exp.compiles) {
    expect(compiled.ok, compiled.ok ? '' : compiled.message).toBe(true);
    return;
  }
  if (!compiled.ok) {
    // kube-apiserver reports a compile error when the expression is evaluated.
    const message = `compilation error: ${compiled.message}`;
    expect(exp.error, `unexpected compile error: ${message}`).toBeDefined();
    expect(matchesText(message, exp.error!, exp.errorMatch), message).toBe(true);
    return;
  }
  const ev = new Evaluation(inputOf(v), {
    budget: v.costBudget ?? RUNTIME_CEL_COST_BUDGET,
    variables: vars,
    ...(v.perCallLimit !== undefined ? { perCallLimit: v.perCallLimit } : {}),
  });
  const r = ev.evaluate(compiled.compiled);
  if (exp.error !== undefined) {
    expect(r.ok, `expected error '${exp.error}', got ${r.ok ? String(r.value) : ''}`).toBe(false);
    if (!r.ok) expect(matchesText(r.message, exp.error, exp.errorMatch), r.message).toBe(true);
    return;
  }
  expect(r.ok, r.ok ? '' : r.message).toBe(true);
  if (!r.ok) return;
  if (exp.valueType) expect(celTypeName(r.value)).toBe(exp.valueType);
  if ('value' in exp) expect(celToJson(r.value)).toEqual(exp.value);
}

const costReport: string[] = [];

describe('cel-context vectors', () => {
  for (const v of load('cel-context')) {
    const cases = v.cases ?? [{ expression: v.expression!, expect: v.expect! }];
    describe(v.name, () => {
      cases.forEach((c, i) => {
        it(`${i}: ${c.expression}`, () => evaluateCase(v, c.expression, c.expect));
      });
    });
  }
});

describe('cel-cost vectors', () => {
  for (const v of load('cel-cost')) {
    it(v.name, () => {
      const ev = new Evaluation(inputOf(v), { budget: v.costBudget! });
      let budgetError: string | undefined;
      let expressionError: string | undefined;
      const values: unknown[] = [];
      for (const e of v.expressions!) {
        const c = compileExpression(e, v.role ?? 'matchCondition', { params: true });
        expect(c.ok, c.ok ? '' : c.message).toBe(true);
        if (!c.ok) return;
        const r = ev.evaluate(c.compiled);
        if (!r.ok && r.kind === 'budget') {
          budgetError = r.message;
          break;
        }
        if (!r.ok) expressionError ??= r.message;
        else values.push(r.value);
      }
      const exp = v.expect!;
      const total = v.costBudget! - ev.remainingBudget;
      if (exp.error) {
        expect(budgetError, `expected the budget to run out (cost ${total})`).toBeDefined();
        expect(budgetError).toContain(exp.error);
        costReport.push(`${v.name}: exceeds budget ${v.costBudget} as expected`);
        return;
      }
      expect(budgetError, budgetError).toBeUndefined();
      if (exp.expressionError) {
        expect(expressionError).toContain(exp.expressionError);
        costReport.push(`${v.name}: stops at PerCallLimit as expected`);
        return;
      }
      costReport.push(`${v.name}: total ${total} (reference ${exp.totalCost})`);
      expect(total).toBe(exp.totalCost);
      expect(ev.remainingBudget).toBe(exp.remainingBudget);
      // cost_test.go's testCost and celcoststability_test.go also require every expression to evaluate
      // without error; `expect.value` (celcoststability_test.go: the rule holds) is what each gives.
      expect(expressionError, expressionError).toBeUndefined();
      if ('value' in exp) for (const value of values) expect(celToJson(value as never)).toEqual(exp.value);
    });
  }

  it('reports totals against the reference figures', () => {
    console.log(`\ncel-cost vectors:\n  ${costReport.join('\n  ')}\n`);
  });
});
