/**
 * The public API of src/cel: compile/evaluate per role, bad input, Kubernetes construction syntax,
 * conversions back to JSON, variables, budgets, the program cache.
 */
import { describe, expect, it } from 'vitest';
import { parseJson, isFloatLiteral, type JsonObject } from '../../src/json/index.js';
import { jsonSizeUpTo } from '../../src/jsonpatch/index.js';
import { ReviewGuard } from '../../src/guard/index.js';
import {
  CompiledVariables,
  ConversionError,
  Evaluation,
  OUT_OF_BUDGET_MESSAGE,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  celToJson,
  compileExpression,
  formatCelValue,
  programCacheStats,
  toApplyConfiguration,
  toJsonPatchOperations,
  type AdmissionInput,
  type ConvertedSize,
  type CelRole,
  type CompileScope,
} from '../../src/cel/index.js';
import { fakeAuthorizer } from './fake-authorizer.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
  spec: { containers: [{ name: 'a', image: 'nginx:1.2' }, { name: 'b', image: 'envoy' }], priority: 5 },
};
const request = {
  operation: 'CREATE',
  name: 'web',
  namespace: 'shop',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  userInfo: { username: 'alice', groups: ['dev'] },
};
const input: AdmissionInput = { object: pod, oldObject: null, request };

function compiled(expr: string, role: CelRole = 'variable', scope: CompileScope = { params: false }) {
  const r = compileExpression(expr, role, scope);
  if (!r.ok) throw new Error(r.message);
  return r.compiled;
}

function run(expr: string, role: CelRole = 'variable', inp: AdmissionInput = input, budget = RUNTIME_CEL_COST_BUDGET) {
  return new Evaluation(inp, { budget }).evaluate(compiled(expr, role));
}

function value(expr: string, role: CelRole = 'variable', inp: AdmissionInput = input): unknown {
  const r = run(expr, role, inp);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe('bad input: one clear message naming the expression and position', () => {
  it('syntax error', () => {
    const r = compileExpression('object.metadata.name ==', 'matchCondition', { params: false });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/^compilation failed: ERROR: <input>:1:24: Syntax error: /);
    expect(r.message).toContain('\n | object.metadata.name ==\n | .......................^');
  });

  it('a missing closer at the end names the missing token, as ANTLR reports it (compile_test.go)', () => {
    const first = (expr: string) => {
      const r = compileExpression(expr, 'matchCondition', { params: false });
      return r.ok ? 'ok' : r.message.split('\n')[0];
    };
    expect(first("'asdf'.contains('x'")).toBe("compilation failed: ERROR: <input>:1:20: Syntax error: missing ')' at '<EOF>'");
    expect(first("[1, 2].all(x, x > 0) && object.spec.ports[0")).toContain("Syntax error: missing ']' at '<EOF>'");
    // The end of input cannot follow it while an outer construct is still open, nor follow a ':'.
    expect(first('[1, (2')).toContain("Syntax error: mismatched input '<EOF>' expecting ')'");
    expect(first('true ? false')).toContain("Syntax error: mismatched input '<EOF>' expecting ':'");
  });

  it('type error', () => {
    const r = compileExpression("1 < 'asdf'", 'matchCondition', { params: false });
    expect(r.ok || r.message).toBe(
      "compilation failed: ERROR: <input>:1:3: found no matching overload for '_<_' applied to '(int, string)'\n | 1 < 'asdf'\n | ..^",
    );
  });

  it('unknown function and unknown variable', () => {
    const f = compileExpression('object.metadata.name.frobnicate()', 'variable', { params: false });
    expect(f.ok || f.message).toContain("ERROR: <input>:1:32: undeclared reference to 'frobnicate' (in container '')");
    const v = compileExpression('obj.metadata', 'variable', { params: false });
    expect(v.ok || v.message).toContain("ERROR: <input>:1:1: undeclared reference to 'obj' (in container '')");
    const p = compileExpression('params.x', 'variable', { params: false });
    expect(p.ok || p.message).toContain("undeclared reference to 'params'");
    expect(compileExpression('params.x', 'variable', { params: true }).ok).toBe(true);
  });

  it('result-type checks per role', () => {
    expect(compileExpression('object.metadata.name', 'matchCondition', { params: false })).toEqual({
      ok: false,
      message: 'must evaluate to bool but got dyn',
    });
    expect(compileExpression('[1]', 'jsonPatch', { params: false })).toEqual({
      ok: false,
      message: 'must evaluate to list(JSONPatch) but got list(int)',
    });
    expect(compileExpression('Object.spec{}', 'applyConfiguration', { params: false })).toEqual({
      ok: false,
      message: 'must evaluate to Object but got Object.spec',
    });
  });

  it('over-budget expression: stops with the Kubernetes text', () => {
    const expr = '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, lists.range(200).all(d, d >= 0))))';
    const r = run(expr);
    expect(r).toMatchObject({ ok: false, kind: 'runtime' });
    if (r.ok) return;
    expect(r.message).toBe(`expression '${expr}' resulted in error: operation cancelled: actual cost limit exceeded`);
    // Cost is counted while evaluating: it stops just past the limit, not after the whole loop.
    expect(r.cost).toBeGreaterThan(PER_CALL_LIMIT);
    expect(r.cost).toBeLessThan(PER_CALL_LIMIT + 1000);
  });

  it('a huge string built in a comprehension stops at the limit', () => {
    const expr = 'lists.range(1000000).map(i, string(i) + string(i)).size() > 0';
    const r = run(expr);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('operation cancelled: actual cost limit exceeded');
  });

  it('never throws, whatever it is given', () => {
    const inputs: unknown[] = ['', ' ', '(', ')', '[', '{', '}}', '"', "'", '1..2', '1 +* 2', '.', '@', '\u0000', 'a.?', 'x[?', '{?', 'Object{', 'has()', 'has(1)', '[1,2].map(1, 1)', '1u - 2u', '-9223372036854775808 - 1', 'int(1e30)', "timestamp('x')", '9223372036854775808', 42, null, undefined, {}];
    for (const e of inputs) {
      for (const role of ['matchCondition', 'variable', 'jsonPatch', 'applyConfiguration'] as const) {
        const r = compileExpression(e as string, role, { params: true });
        if (!r.ok) {
          expect(typeof r.message).toBe('string');
          continue;
        }
        const out = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(r.compiled);
        expect(typeof out.ok).toBe('boolean');
      }
    }
  });

  it('namespaced library functions are named as in cel-go, in type errors and at run time', () => {
    const r = compileExpression("sets.contains([1], ['a'])", 'variable', { params: false });
    expect(r.ok || r.message).toContain("found no matching overload for 'sets.contains' applied to '(list(int), list(string))'");
    const q = compileExpression('strings.quote(1)', 'variable', { params: false });
    expect(q.ok || q.message).toContain("found no matching overload for 'strings.quote' applied to '(int)'");
    // sets.contains is charged one unit per pair of elements (cel-go's set tracker): 3·2 vs 3·1
    const cost = (e: string) => (run(e) as { cost: number }).cost;
    expect(cost('sets.contains([1, 2, 3], [1, 2])') - cost('sets.contains([1, 2, 3], [1])')).toBe(3);
  });

  it("string indexOf/lastIndexOf cost a traversal, as Kubernetes' name-keyed cost function charges them", () => {
    // 26 bytes: floor(26 * 0.1) = 2; literals cost nothing
    expect(run("'abcdefghijklmnopqrstuvwxyz'.indexOf('z')")).toMatchObject({ ok: true, value: 25n, cost: 2 });
    expect(run("'abcdefghijklmnopqrstuvwxyz'.lastIndexOf('a', 25)")).toMatchObject({ ok: true, value: 0n, cost: 2 });
  });

  it('a library error reads as Kubernetes shows it, without the function name', () => {
    const r = run('cidr("192.168.0.0/")');
    expect(r.ok || r.message).toBe(
      `expression 'cidr("192.168.0.0/")' resulted in error: network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""`,
    );
  });

  it('list index errors read as cel-go attribute resolution reports them', () => {
    const message = (expr: string) => {
      const r = run(expr);
      return r.ok ? 'ok' : r.message.slice(r.message.indexOf('resulted in error: ') + 19);
    };
    expect(message('object.spec.containers[5]')).toBe('index out of bounds: 5');
    expect(message('object.spec.containers[-1]')).toBe('index out of bounds: -1');
    expect(message('object.spec.containers[dyn(1000000.0)]')).toBe('index out of bounds: 1e+06');
    expect(message('object.spec.containers[dyn(1.5)]')).toBe('unsupported index value 1.5 in list');
    expect(message('object.spec.containers[object.metadata.name]')).toBe("unsupported index type 'string' in list");
  });

  it('a field of a value without fields: no such key, and has() is false (no EnableErrorOnBadPresenceTest)', () => {
    const result = (expr: string) => {
      const r = run(expr);
      return r.ok ? r.value : r.message.slice(r.message.indexOf('resulted in error: ') + 19);
    };
    expect(result('object.metadata.name.first')).toBe('no such key: first');
    expect(result('has(object.metadata.name.first)')).toBe(false);
    expect(result('object.metadata.?name.?first.hasValue()')).toBe(false);
    expect(result('has(object.spec.priority.x)')).toBe(false);
    expect(result('object.spec.containers.name')).toBe("unsupported index type 'string' in list");
    expect(result('has(object.spec.containers.name)')).toBe("unsupported index type 'string' in list");
    expect(result('object.metadata.name[0]')).toBe('no such key: 0');
    expect(result('object.metadata.name[?0].hasValue()')).toBe(false);
  });

  it("format() is cel-go's strings version 2 formatter, as in kube-apiserver (en_US)", () => {
    const result = (expr: string) => {
      const r = run(expr);
      return r.ok ? r.value : r.message.slice(r.message.indexOf('resulted in error: ') + 19);
    };
    // validation_test.go: '%e'.format([3.14]) == '3.140000×10⁰⁰'; the precision is taken as a width.
    expect(result("'%e'.format([3.14])")).toBe('3.140000×10⁰⁰');
    expect(result("'%.2e'.format([-0.000000002])")).toBe('-2.000000×10⁻⁰⁹');
    expect(result("'%.2f|%f'.format([-1234.5, 1.0 / 0.0])")).toBe('-1,234.50|∞');
    expect(result("'%s'.format([['a', 2.5, null, [1u], duration('2h'), b'x', type(1)]])")).toBe('["a", 2.500000, null, [1], duration("7200s"), b"x", int]');
    expect(result("'%s'.format([{'b': true, 'a': 0.0 / 0.0}])")).toBe('{"a":"NaN", "b":true}');
    expect(result("'%s %s'.format([2.5, 1e21])")).toBe('2.5 1e+21');
    // Literal arguments are checked at compile time (test/cel/lib/string-format-check.test.ts); a dyn
    // argument gets the same text at run time.
    expect(result("'%d'.format([dyn(2.5)])")).toBe('error during formatting: decimal clause can only be used on integers, was given double');
    expect(result("'%f'.format([dyn(1)])")).toBe('error during formatting: fixed-point clause can only be used on doubles, was given int');
    expect(compileExpression("'%d'.format([2.5])", 'variable', { params: false }).ok).toBe(false);
  });

  it('strings is version 2 there: no string reverse (lists have theirs)', () => {
    const c = compileExpression("request.name.reverse()", "variable", { params: false });
    expect(c.ok || c.message).toContain("found no matching overload for 'reverse' applied to 'string.()'");
    expect(run('[1, 2].reverse()').ok).toBe(true);
  });

  it("cel.bind is not declared (kube-apiserver's environment has no ext.Bindings); Kyverno's dialect has it", () => {
    const c = compileExpression('cel.bind(x, 1, x + 1) == 2', 'variable', { params: false });
    expect(c.ok).toBe(false);
    if (!c.ok) {
      // cel-go's checker: the arguments, then the target, then the function name.
      expect(c.message).toContain("undeclared reference to 'x'");
      expect(c.message).toContain("undeclared reference to 'cel' (in container '')");
      expect(c.message).toContain("undeclared reference to 'bind' (in container '')");
    }
    expect(compileExpression('cel.bind(x, 1, x + 1) == 2', 'matchCondition', { params: false }).ok).toBe(false);
    const k = compileExpression('cel.bind(x, 1, x + 1)', 'variable', { params: false, dialect: 'kyverno' });
    expect(k.ok).toBe(true);
    if (k.ok) expect(new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(k.compiled)).toMatchObject({ ok: true, value: 2n });
  });

  it('format() takes a mixed-type argument list although literals must otherwise be homogeneous', () => {
    expect(value('"%s-%d".format([object.metadata.name, 42])', 'variable')).toBe('web-42');
    expect(value('"%s:%d".format(["web", 42])', 'variable')).toBe('web:42');
    const mixed = compileExpression('["web", 42].size() == 2', 'matchCondition', { params: false });
    expect(mixed.ok || mixed.message).toContain("expected type 'string' but found 'int'");
  });

  it('deep nesting is refused with a message, not a stack overflow', () => {
    // cel-go's parse listener: more than 250 nested `expr` rules.
    const r = compileExpression('('.repeat(5000) + '1' + ')'.repeat(5000), 'variable', { params: false });
    expect(r.ok || r.message).toContain('expression recursion limit exceeded: 250');
  });
});

describe('the admission variables', () => {
  it('object, oldObject, request (typed), params, namespaceObject', () => {
    expect(value("object.metadata.name == 'web' && oldObject == null")).toBe(true);
    expect(value('request.operation')).toBe('CREATE');
    // Typed request fields read as zero values when absent, but for the `omitempty` ones kube-apiserver's
    // request lacks when empty (admission/v1 AdmissionRequest, bound by SchemalessTypedToVal).
    expect(value('request.dryRun == false && request.kind.group == ""')).toBe(true);
    expect(run('request.subResource')).toMatchObject({ ok: false, message: "expression 'request.subResource' resulted in error: no such key: subResource" });
    expect(run("request.userInfo.uid == ''")).toMatchObject({ ok: false, message: expect.stringContaining('no such key: uid') });
    expect(value("!has(request.subResource) && !has(request.userInfo.uid) && request.?subResource.orValue('') == ''")).toBe(true);
    const clusterScoped = { ...input, request: { ...request, namespace: '', name: '' } };
    expect(value('!has(request.namespace) && !has(request.name)', 'variable', clusterScoped)).toBe(true);
    expect(new Evaluation(clusterScoped, { budget: 1000 }).evaluate(compiled("request.namespace == ''"))).toMatchObject({
      ok: false,
      message: "expression 'request.namespace == ''' resulted in error: no such key: namespace",
    });
    const r = compileExpression('request.bogus', 'variable', { params: false });
    expect(r.ok || r.message).toContain("undefined field 'bogus'");
    const withParams = compiled('params.data.x', 'variable', { params: true });
    expect(new Evaluation({ ...input, params: { data: { x: 'y' } } }, { budget: 1000 }).evaluate(withParams)).toMatchObject({ ok: true, value: 'y' });
    expect(new Evaluation(input, { budget: 1000 }).evaluate(compiled('params == null', 'variable', { params: true }))).toMatchObject({
      ok: true,
      value: true,
    });
  });

  it('namespaceObject has only the listed fields; timestamps keep nanoseconds', () => {
    const ns = { metadata: { name: 'shop', creationTimestamp: '2024-01-02T03:04:05.123456789Z' }, status: { phase: 'Active' } };
    const inp = { ...input, namespaceObject: ns };
    expect(value("namespaceObject.status.phase == 'Active'", 'variable', inp)).toBe(true);
    expect(formatCelValue(value('namespaceObject.metadata.creationTimestamp', 'variable', inp) as never)).toBe(
      '{"$timestamp":"2024-01-02T03:04:05.123456789Z"}',
    );
    expect(value('namespaceObject.metadata.creationTimestamp + duration("1ns") > namespaceObject.metadata.creationTimestamp', 'variable', inp)).toBe(true);
    const bad = compileExpression('namespaceObject.metadata.managedFields', 'variable', { params: false });
    expect(bad.ok || bad.message).toContain("undefined field 'managedFields'");
    // core/v1 Namespace and meta/v1 ObjectMeta: an omitempty field holding its zero value is absent, a
    // value struct (spec, creationTimestamp) never is; `UID` is `uid` in JSON, so never there.
    const bare = { ...input, namespaceObject: { metadata: { name: 'shop', uid: 'u-1', generation: 0, labels: {} } } };
    for (const field of ['generation', 'labels', 'deletionTimestamp', 'UID']) {
      expect(new Evaluation(bare, { budget: 1000 }).evaluate(compiled(`namespaceObject.metadata.${field}`))).toMatchObject({
        ok: false,
        message: expect.stringContaining(`no such key: ${field}`),
      });
    }
    expect(value('has(namespaceObject.spec) && has(namespaceObject.metadata.creationTimestamp) && !has(namespaceObject.status.phase)', 'variable', bare)).toBe(true);
  });

  it('keeps the int/double distinction of the JSON text', () => {
    const doc = parseJson('{"a": 1, "b": 1.0, "c": 1.5, "l": [2, 2.0]}');
    const inp = { ...input, object: doc as never };
    expect(value("type(object.a) == int && type(object.b) == double && type(object.c) == double", 'variable', inp)).toBe(true);
    expect(value('type(object.l[0]) == int && type(object.l[1]) == double', 'variable', inp)).toBe(true);
    expect(value('object.a == object.b', 'variable', inp)).toBe(true); // heterogeneous equality
    expect(value('object.a + 1', 'variable', inp)).toBe(2n);
  });

  it('integer overflow and uint underflow are errors', () => {
    expect(run('9223372036854775807 + 1')).toMatchObject({ ok: false, message: expect.stringContaining('integer overflow') });
    expect(run('0u - 1u')).toMatchObject({ ok: false, message: expect.stringContaining('unsigned integer overflow') });
    expect(run('-9223372036854775808 / -1')).toMatchObject({ ok: false });
  });

  it("conversions out of range fail with cel-go's overflow errors (common/types: doubleToInt64Checked and the like)", () => {
    // Computed from the object, so the conversion is not folded into a program-creation error.
    const message = (expr: string) => {
      const r = run(expr);
      return r.ok ? 'ok' : r.message.replace(/^expression '.*' resulted in error: /s, '');
    };
    expect(message('int(double(object.spec.priority) * 1e300)')).toBe('integer overflow');
    expect(message('int(-double(object.spec.priority) * 1e300)')).toBe('integer overflow');
    expect(message('int(double(object.spec.priority) / 0.0)')).toBe('integer overflow');
    expect(message('uint(-double(object.spec.priority))')).toBe('unsigned integer overflow');
    expect(message('uint(double(object.spec.priority) * 1e300)')).toBe('unsigned integer overflow');
    expect(message('uint(-object.spec.priority)')).toBe('unsigned integer overflow');
    expect(message('int(uint(object.spec.priority) * 2000000000000000000u)')).toBe('integer overflow');
    // The edges: 2^63 and -2^63 as doubles are out of range for int, 2^64 for uint.
    expect(message('int(double(object.spec.priority) * 0.0 + 9223372036854775808.0)')).toBe('integer overflow');
    expect(message('int(double(object.spec.priority) * 0.0 - 9223372036854775808.0)')).toBe('integer overflow');
    expect(message('uint(double(object.spec.priority) * 0.0 + 18446744073709551616.0)')).toBe('unsigned integer overflow');
    expect(run('int(double(object.spec.priority) * 0.0 - 9223372036854774784.0)')).toMatchObject({ ok: true, value: -9223372036854774784n });
  });

  it("timestamps and durations out of range fail with cel-go's errors (timestamp overflow, integer overflow)", () => {
    const message = (expr: string) => {
      const r = run(expr);
      return r.ok ? 'ok' : r.message.replace(/^expression '.*' resulted in error: /s, '');
    };
    const p = 'object.spec.priority'; // 5, read at run time so nothing is folded
    expect(message(`timestamp(253402300795 + ${p})`)).toBe('timestamp overflow');
    expect(message(`timestamp('9999-12-31T23:59:59Z') + duration(string(${p}) + 's')`)).toBe('timestamp overflow');
    expect(message(`duration(string(${p}) + 's') + timestamp('9999-12-31T23:59:59Z')`)).toBe('timestamp overflow');
    expect(message(`timestamp('0001-01-01T00:00:00Z') - duration(string(${p}) + 's')`)).toBe('timestamp overflow');
    expect(message(`duration('2562047h') + duration(string(${p}) + 'h')`)).toBe('integer overflow');
    expect(message(`duration('-2562047h') - duration(string(${p}) + 'h')`)).toBe('integer overflow');
    expect(message(`timestamp('9999-12-31T23:59:59Z') - timestamp('000' + string(${p}) + '-01-01T00:00:00Z')`)).toBe('integer overflow');
    expect(message(`timestamp('2020-01-01T00:00:00Z') - duration('-9223372036.85477580' + string(${p} + 3) + 's')`)).toBe('integer overflow');
    expect(message(`timestamp('2000-01-01T00:00:00Z') - timestamp('1999-12-31T23:59:5' + string(${p}) + 'Z')`)).toBe('ok');
  });

  it('authorizer is an error value unless an authorizer is configured', () => {
    const c = compiled("authorizer.path('/healthz').check('get').allowed()", 'matchCondition');
    const r = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c);
    expect(r).toMatchObject({ ok: false, kind: 'runtime' });
    if (!r.ok) expect(r.message).toContain('authorizer is not available');
    const authz = fakeAuthorizer({ allow: [{ path: '/healthz', verb: 'get' }], default: { decision: 'deny' } });
    expect(new Evaluation({ ...input, authorizer: authz }, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c)).toMatchObject({ ok: true, value: true });
    expect(authz.calls[0]).toMatchObject({ user: { username: 'alice', groups: ['dev'] }, path: '/healthz', verb: 'get' });
  });

  it('evaluateAsync awaits an asynchronous authorizer', async () => {
    const authz = fakeAuthorizer(
      { allow: [{ resourceRequest: true, resource: 'pods', namespace: 'shop', name: 'web', verb: 'update' }], default: { decision: 'deny', reason: 'no' } },
      { async: true },
    );
    const c = compiled("authorizer.requestResource.check('update').allowed() && !authorizer.group('').resource('pods').check('delete').allowed()", 'matchCondition');
    const sync = new Evaluation({ ...input, authorizer: authz }, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c);
    expect(sync.ok).toBe(false);
    const ev = new Evaluation({ ...input, authorizer: authz }, { budget: RUNTIME_CEL_COST_BUDGET });
    const r = await ev.evaluateAsync(c);
    expect(r).toMatchObject({ ok: true, value: true });
    // Two checks at 350,000 each plus the nominal calls, charged once despite the replays.
    expect(RUNTIME_CEL_COST_BUDGET - ev.remainingBudget).toBe(r.cost);
    expect(r.cost).toBeGreaterThan(700_000);
  });
});

describe('variables (composition)', () => {
  const vars = CompiledVariables.compile(
    [
      { name: 'images', expression: 'object.spec.containers.map(c, c.image)' },
      { name: 'first', expression: 'variables.images[0]' },
      { name: 'broken', expression: "1 == 'a'" },
      { name: 'fails', expression: 'object.spec.missing' },
    ],
    { params: false },
  );

  it('records static types for later expressions', () => {
    expect(vars.entries.map((e) => [e.name, String(e.type)])).toEqual([
      ['images', 'list(dyn)'],
      ['first', 'dyn'],
      ['broken', 'dyn'],
      ['fails', 'dyn'],
    ]);
    const typed = CompiledVariables.compile([{ name: 'l', expression: '[1, 2]' }], { params: false });
    const r = compileExpression("variables.l[0] == 'x'", 'matchCondition', typed.scope());
    expect(r.ok || r.message).toContain("found no matching overload for '_==_' applied to '(int, string)'");
    const undefinedVar = compileExpression('variables.nope', 'variable', typed.scope());
    expect(undefinedVar.ok || undefinedVar.message).toContain("undefined field 'nope'");
  });

  it('evaluates lazily, once per evaluation, charging the budget once', () => {
    const c = compiled("variables.first == 'nginx:1.2' && variables.first.startsWith('nginx')", 'matchCondition', vars.scope());
    const ev = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET, variables: vars });
    const r = ev.evaluate(c);
    expect(r).toMatchObject({ ok: true, value: true });
    const once = RUNTIME_CEL_COST_BUDGET - ev.remainingBudget;
    // Same expression again in the same evaluation: the variables are cached, only the expression costs.
    const r2 = ev.evaluate(c);
    expect(RUNTIME_CEL_COST_BUDGET - ev.remainingBudget - once).toBe(r2.cost);
    expect(r2.cost).toBeLessThan(once);
  });

  it('failures carry the Kubernetes texts', () => {
    const ev = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET, variables: vars });
    const a = ev.evaluate(compiled('variables.broken', 'variable', vars.scope()));
    expect(a.ok || a.message).toContain('composited variable "broken" fails to compile: compilation failed: ERROR: <input>:1:3:');
    const b = ev.evaluate(compiled('variables.fails', 'variable', vars.scope()));
    expect(b.ok || b.message).toBe("expression 'variables.fails' resulted in error: composited variable \"fails\" fails to evaluate: no such key: missing");
  });

  it('the shared budget runs out across expressions', () => {
    const c = compiled("object.metadata.name == 'web'", 'matchCondition');
    const ev = new Evaluation(input, { budget: 7 });
    expect(ev.evaluate(c)).toMatchObject({ ok: true });
    expect(ev.evaluate(c)).toMatchObject({ ok: false, kind: 'budget', message: OUT_OF_BUDGET_MESSAGE });
    expect(ev.evaluate(compiled('true', 'matchCondition'))).toMatchObject({ ok: false, kind: 'budget' });
  });
});

describe('construction syntax and conversions', () => {
  it('JSONPatch values become RFC 6902 operations', () => {
    const ops = toJsonPatchOperations(
      value(
        "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('k8s.io/x~y'), value: 'v'}, JSONPatch{op: 'remove', path: '/spec/x'}, JSONPatch{op: 'copy', from: '/a', path: '/b'}]",
        'jsonPatch',
      ) as never,
    );
    expect(ops).toEqual([
      { op: 'add', path: '/metadata/labels/k8s.io~1x~0y', value: 'v' },
      { op: 'remove', path: '/spec/x' },
      { op: 'copy', path: '/b', from: '/a' },
    ]);
  });

  it('an Object field named __proto__ is printed as data, like a map key of that name', () => {
    expect(formatCelValue(value("Object.spec{__proto__: 1, constructor: 2}") as never)).toBe(
      '{"$object":"Object.spec","fields":{"__proto__":1,"constructor":2}}',
    );
    expect(formatCelValue(value("{'__proto__': 1}") as never)).toBe('{"__proto__":1}');
  });

  it('library values print with their string form (the text of a URL, the name of a format)', () => {
    expect(formatCelValue(value("url('https://example.com/a%20b?x=1')") as never)).toBe('{"$kubernetes.URL":"https://example.com/a%20b?x=1"}');
    expect(formatCelValue(value('format.dns1123Label()') as never)).toBe('{"$kubernetes.NamedFormat":"DNS1123Label"}');
    expect(formatCelValue(value("[ip('::1'), ip('10.0.0.1')]") as never)).toBe('[{"$net.IP":"::1"},{"$net.IP":"10.0.0.1"}]');
  });

  it('JSONPatch fields: has() is true for non-empty strings and a set value; unknown fields do not compile', () => {
    expect(value("has(JSONPatch{op: 'add'}.op) && !has(JSONPatch{op: 'add'}.path) && !has(JSONPatch{}.value) && has(JSONPatch{value: null}.value)")).toBe(true);
    expect(value("JSONPatch{op: 'add'} == JSONPatch{op: 'add', path: ''} && JSONPatch{value: '1'} != JSONPatch{value: 1}")).toBe(true);
    const r = compileExpression("[JSONPatch{op: 'add', bogus: 1}]", 'jsonPatch', { params: false });
    expect(r.ok || r.message).toContain("undefined field 'bogus'");
    const inConditions = compileExpression("JSONPatch{op: 'add'}.op == 'add'", 'matchCondition', { params: false });
    expect(inConditions.ok || inConditions.message).toContain("undeclared reference to 'JSONPatch'");
  });

  it('Object literals: access, has(), equality, optional fields', () => {
    expect(value('Object{f: 1}.f')).toBe(1n);
    expect(value('has(Object{f: 1}.f) && !has(Object{}.f) && Object{} == Object{} && Object{a: 1} != Object{a: 2}')).toBe(true);
    const cfg = toApplyConfiguration(
      value("Object{metadata: Object.metadata{?labels: optional.none(), ?annotations: optional.of({'a': 'b'})}}", 'applyConfiguration') as never,
    );
    expect(cfg).toEqual({ metadata: { annotations: { a: 'b' } } });
  });

  it('Object equality is Kubernetes\' (same type name, reflect.DeepEqual of the fields): field types count', () => {
    const cases: [string, boolean][] = [
      ['Object{a: 1} == Object{a: 1}', true],
      ['Object{a: 1} == Object{a: 1.0}', false], // although 1 == 1.0
      ['Object{a: 1} == Object{a: 1u}', false],
      ["Object{a: 'x'} == Object{a: 'x', b: null}", false],
      ['Object{a: Object.a{b: 1}} == Object{a: Object.a{b: 1}}', true],
      ['Object{a: Object.a{b: 1}} == Object{a: Object.a{b: 1.0}}', false],
      ['dyn(Object.x{}) == dyn(Object.y{})', false],
      ["Object{m: {'k': 1}} == Object{m: {'k': 1}}", true],
      ["Object{m: {'k': 1}} == Object{m: {'k': 1.0}}", false],
      ["Object{m: {1: 'x'}} == Object{m: {1u: 'x'}}", false],
      // cel-go list values hold a function, which DeepEqual never finds equal: only the same list is
      ['Object{l: [1]} == Object{l: [1]}', false],
      ['[[1]].all(l, Object{l: l} == Object{l: l})', true],
      // maps read from documents are plain Go maps and slices: compared element by element
      ['Object{s: object.spec} == Object{s: oldObject.spec}', true],
      ["Object{q: quantity('1k')} == Object{q: quantity('1k')}", true],
      ["Object{q: quantity('1k')} == Object{q: quantity('1000')} || quantity('1k') != quantity('1000')", false],
    ];
    const inp: AdmissionInput = { ...input, oldObject: parseJson(JSON.stringify(pod)) };
    for (const [expr, want] of cases) expect(value(expr, 'variable', inp), expr).toBe(want);
  });

  it('ApplyConfiguration: nested literals must follow the field path; ints stay ints, doubles stay doubles', () => {
    const cfg = toApplyConfiguration(
      value(
        "Object{spec: Object.spec{replicas: 3, ratio: 2.0, template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'a'}]}}}}",
        'applyConfiguration',
      ) as never,
    );
    expect(cfg).toEqual({ spec: { replicas: 3, ratio: 2, template: { spec: { containers: [{ name: 'a' }] } } } });
    const spec = (cfg.spec as Record<string, unknown>);
    expect(isFloatLiteral(spec, 'replicas')).toBe(false);
    expect(isFloatLiteral(spec, 'ratio')).toBe(true);
    expect(() => toApplyConfiguration(value("Object{spec: Object.specx{replicas: 3}}", 'applyConfiguration') as never)).toThrow(
      'type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type',
    );
  });

  it('JSONPatch values: the root literal name is free, nested ones are checked', () => {
    const ok = toJsonPatchOperations(value("[JSONPatch{op: 'add', path: '/spec', value: Object.invalid{replicas: 1}}]", 'jsonPatch') as never);
    expect(ok).toEqual([{ op: 'add', path: '/spec', value: { replicas: 1 } }]);
    expect(() =>
      toJsonPatchOperations(value("[JSONPatch{op: 'add', path: '/spec', value: Object.x{a: Object.y{}}}]", 'jsonPatch') as never),
    ).toThrow(ConversionError);
  });

  it('JSONPatch values that are not themselves a literal (a list, a map, an optional) are not type-name checked', () => {
    // kube-apiserver checks type names only when the value is an Object literal (mutating/patch/json_patch.go);
    // converting a list or map of literals to JSON checks nothing (cel/mutation/dynamic/objects.go).
    const values: [string, unknown][] = [
      ["[Object.spec.template.spec.initContainers{name: 'i', resources: Object.x.resources{}}]", [{ name: 'i', resources: {} }]],
      ["{'k': Object.a{b: Object.c{d: 1}}}", { k: { b: { d: 1 } } }],
      ['optional.of(Object.a{b: Object.c{}})', { b: {} }],
    ];
    for (const [v, want] of values) {
      expect(toJsonPatchOperations(value(`[JSONPatch{op: 'add', path: '/x', value: ${v}}]`, 'jsonPatch') as never), v).toEqual([{ op: 'add', path: '/x', value: want }]);
    }
  });

  it('a conversion under a guard reports the JSON size it wrote (as jsonSizeUpTo counts it), unknown when it embeds a document subtree', () => {
    const guard = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 1 << 20 });
    const patches = [
      "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('k8s.io/x~y'), value: 'v'}, JSONPatch{op: 'remove', path: '/spec/x'}, JSONPatch{op: 'copy', from: '/a', path: '/b'}]",
      "[JSONPatch{op: 'add', path: '/spec', value: Object.x{replicas: 3, ratio: 2.5, on: true, none: optional.none(), tags: ['a', 'bc'], m: {'k': [1u, 2u]}, n: [-1], b: b'hi'}}]",
      "[JSONPatch{op: 'add', path: '/spec', value: {'none': dyn(null), 'at': dyn(timestamp('2024-01-01T00:00:00Z')), 'd': dyn(duration('90s')), 'l': dyn([Object.x{a: 1}])}}]",
      "[JSONPatch{op: 'test', path: '/a', value: 'b'}].filter(p, false)",
    ];
    const configs = [
      "Object{metadata: Object.metadata{labels: {'team': 'a', 'x': 'yz'}}, spec: Object.spec{containers: [Object.spec.containers{name: 'a', ports: [Object.spec.containers.ports{containerPort: 80}]}]}}",
      'Object{}',
    ];
    const cases: [string, (size: ConvertedSize) => Parameters<typeof jsonSizeUpTo>[0]][] = [
      ...patches.map((expr): [string, (size: ConvertedSize) => JsonObject[]] => [expr, (size) => toJsonPatchOperations(value(expr, 'jsonPatch') as never, guard, size)]),
      ...configs.map((expr): [string, (size: ConvertedSize) => JsonObject] => [expr, (size) => toApplyConfiguration(value(expr, 'applyConfiguration') as never, guard, size)]),
    ];
    for (const [expr, convert] of cases) {
      const size: ConvertedSize = { bytes: -1 };
      const converted = convert(size);
      expect(size.bytes, expr).toBe(jsonSizeUpTo(converted, Infinity));
    }
    // A subtree of the object is embedded as it is: its size is not known without measuring it.
    const embedded: ConvertedSize = { bytes: -1 };
    toJsonPatchOperations(value("[JSONPatch{op: 'add', path: '/spec', value: object.spec}]", 'jsonPatch') as never, guard, embedded);
    expect(embedded.bytes).toBeNaN();
    const unguarded: ConvertedSize = { bytes: -1 };
    toApplyConfiguration(value('Object{}', 'applyConfiguration') as never, undefined, unguarded);
    expect(unguarded.bytes).toBeNaN();
  });

  it("a JSON patch value JSON cannot hold fails with kube-apiserver's text (cel-go's conversion to structpb.Value)", () => {
    const patchError = (v: string) => {
      try {
        toJsonPatchOperations(value(`[JSONPatch{op: 'add', path: '/a', value: ${v}}]`, 'jsonPatch') as never);
        return 'converted';
      } catch (err) {
        return (err as Error).message.replace('JSONPath valueExpression evaluated to a type that could not marshal to JSON: ', '');
      }
    };
    expect(patchError("{1: 'v'}")).toBe("unsupported type conversion from 'int' to string");
    expect(patchError("{1u: 'v'}")).toBe("unsupported type conversion from 'uint' to string");
    expect(patchError("{true: 'v'}")).toBe("type conversion error from bool to 'string'");
    expect(patchError('int')).toBe("type conversion not supported for 'type'");
    expect(patchError('optional.none()')).toBe('optional.none() dereference');
    expect(patchError("quantity('1')")).toBe("type conversion error from 'Quantity' to '*structpb.Value'");
    expect(patchError("ip('10.0.0.1')")).toBe("type conversion error from 'IP' to '*structpb.Value'");
    expect(patchError('JSONPatch{}')).toBe('cannot convert to native type: *structpb.Value');
    // dynamic.ObjectVal checks its fields' map keys itself, with Go's %q and %T of the key. A literal
    // below a literal is converted by its Value(), which makes that failure a value (*types.Err) that
    // structpb refuses.
    expect(patchError("Object.spec{m: Object.spec.m{l: {1: 'v'}}}")).toBe('proto: invalid type: *types.Err');
    expect(patchError("Object.spec{l: {100: 'v'}}")).toBe(`fail to convert field "l": map key 'd' is of type types.Int, not string`);
    expect(patchError("Object.spec{l: {true: 'v'}}")).toBe('fail to convert field "l": map key %!q(types.Bool=true) is of type types.Bool, not string');
    // Inside an Object literal the fields are Go values (dynamic.ObjectVal's convertField, CEL maps'
    // values by their Value()) that structpb.NewValue takes or refuses, unlike cel-go's JSON conversion
    // outside a literal, which writes timestamps and durations as strings.
    expect(patchError("Object.spec{t: timestamp('2020-01-01T00:00:00Z')}")).toBe('proto: invalid type: time.Time');
    expect(patchError("Object.spec{d: duration('1s')}")).toBe('proto: invalid type: time.Duration');
    expect(patchError("Object.spec{l: [duration('1s')]}")).toBe('proto: invalid type: time.Duration');
    expect(patchError("Object.spec{m: {'k': timestamp('2020-01-01T00:00:00Z')}}")).toBe('proto: invalid type: time.Time');
    expect(patchError("Object.spec{m: Object.spec.m{d: duration('1s')}}")).toBe('proto: invalid type: time.Duration');
    expect(patchError("[Object.spec{d: duration('1s')}]")).toBe('proto: invalid type: time.Duration');
    expect(patchError('Object.spec{n: null}')).toBe('proto: invalid type: structpb.NullValue');
    expect(patchError("Object.spec{l: [dyn('a'), dyn(null)]}")).toBe('proto: invalid type: structpb.NullValue');
    expect(patchError("Object.spec{m: {'k': {'k2': 'v'}}}")).toBe('proto: invalid type: map[ref.Val]ref.Val');
    expect(patchError("Object.spec{t: timestamp('2020-01-01T00:00:00Z'), x: Object.spec.y{}}")).toBe(
      'type mismatch: unexpected type name "Object.spec.y", expected "Object.spec.x", which matches field name path from root Object type',
    );
    // A library value is its Go value there (a Quantity's *resource.Quantity...), which structpb refuses
    // (outside a literal cel-go's own conversion refuses it, with another text, above); a type is its name.
    expect(patchError("Object.spec{q: quantity('1')}")).toBe('proto: invalid type: *resource.Quantity');
    expect(patchError("Object.spec{l: [ip('10.0.0.1')]}")).toBe('proto: invalid type: netip.Addr');
    expect(patchError("Object.spec{m: {'c': cidr('10.0.0.0/8')}}")).toBe('proto: invalid type: netip.Prefix');
    expect(patchError("Object.spec{u: url('https://a/b')}")).toBe('proto: invalid type: *url.URL');
    expect(patchError("Object.spec{v: semver('1.2.3')}")).toBe('proto: invalid type: semver.Version');
    expect(patchError('Object.spec{f: format.dns1123Label()}')).toBe('proto: invalid type: cel.Format');
    expect(toJsonPatchOperations(value("[JSONPatch{op: 'add', path: '/a', value: Object.spec{t: int, l: type([1]), d: type(duration('1s'))}}]", 'jsonPatch') as never)).toEqual([
      { op: 'add', path: '/a', value: { t: 'int', l: 'list', d: 'google.protobuf.Duration' } },
    ]);
    // What Go takes: an optional field's value (none is a null), bytes (base64), and, outside literals,
    // timestamps and durations as cel-go writes them.
    expect(toJsonPatchOperations(value("[JSONPatch{op: 'add', path: '/a', value: Object.spec{o: optional.none(), s: optional.of('v'), b: b'hi', u: 1u, l: [1, 2]}}]", 'jsonPatch') as never)).toEqual([
      { op: 'add', path: '/a', value: { o: null, s: 'v', b: 'aGk=', u: 1, l: [1, 2] } },
    ]);
    expect(toJsonPatchOperations(value("[JSONPatch{op: 'add', path: '/a', value: {'t': dyn(timestamp('2020-01-01T00:00:00Z')), 'd': dyn(duration('1.5s'))}}]", 'jsonPatch') as never)).toEqual([
      { op: 'add', path: '/a', value: { t: '2020-01-01T00:00:00Z', d: '1.5s' } },
    ]);
    // An optional value converts its value.
    expect(toJsonPatchOperations(value("[JSONPatch{op: 'add', path: '/a', value: optional.of({'k': 'v'})}]", 'jsonPatch') as never)).toEqual([
      { op: 'add', path: '/a', value: { k: 'v' } },
    ]);
    // An apply configuration with such a key is not a map at all (dynamic.ObjectVal.Value is an error).
    expect(() => toApplyConfiguration(value("Object{spec: Object.spec{m: {1: 'v'}}}", 'applyConfiguration') as never)).toThrow(
      'invalid return type: *dynamic.ObjectVal',
    );
  });

  it('maps need string keys to become JSON', () => {
    expect(() => celToJson(value('{1: 2}') as never)).toThrow('map key "1" is of type int, not string');
    expect(celToJson(value("{'a': [dyn(1), dyn(2.5), dyn(b'hi'), dyn(duration('90s')), dyn(timestamp('2024-01-01T00:00:00Z'))]}") as never)).toEqual({
      a: [1, 2.5, 'aGk=', '90s', '2024-01-01T00:00:00Z'],
    });
  });
});

describe('the program cache', () => {
  it('reuses compiled programs and counts hits and misses', () => {
    const before = programCacheStats();
    const expr = `object.metadata.name == 'cache-test-${Math.random()}'`;
    const a = compileExpression(expr, 'matchCondition', { params: false });
    const b = compileExpression(expr, 'matchCondition', { params: false });
    const after = programCacheStats();
    expect(a.ok && b.ok && a.compiled === b.compiled).toBe(true);
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(1);
    // A different environment (params declared) is a different entry.
    const c = compileExpression(expr, 'matchCondition', { params: true });
    expect(c.ok && a.ok && c.compiled !== a.compiled).toBe(true);
  });
});
