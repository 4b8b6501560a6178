/**
 * Run-time "no such overload" texts, path by path, as cel-go v0.26 (kube-apiserver's) words them. The
 * checker's `found no matching overload for ...` is compile-time only; at run time cel-go never says
 * "no matching overload". `object` is dyn in the admission environment, so its fields reach every path.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation, type CelValue } from '../../src/cel/index.js';

const object = { spec: { replicas: 3, b: true, s: 'abc', list: [1, 2], m: { a: 1 } } };

function run(expression: string, dialect: 'kubernetes' | 'kyverno' = 'kubernetes'): { value?: CelValue; error?: string } {
  const r = compileExpression(expression, 'variable', { params: false, dialect });
  if (!r.ok) throw new Error(r.message);
  const out = new Evaluation({ object: object as never }, { budget: 10_000_000 }).evaluate(r.compiled);
  if (out.ok) return { value: out.value };
  const prefix = `expression '${expression}' resulted in error: `;
  return { error: out.message.startsWith(prefix) ? out.message.slice(prefix.length) : out.message };
}

type Case = [expression: string, error: string];

function cases(list: Case[], dialect?: 'kubernetes' | 'kyverno'): void {
  it.each(list)('%s', (expression, error) => expect(run(expression, dialect)).toEqual({ error }));
}

describe('run-time no such overload', () => {
  // Per-overload bindings: the overload's type guard, or the dispatch over several overloads, gives
  // MaybeNoSuchOverload(f.Name(), args...) = "no such overload: %s(%s)" with the runtime TypeName()s
  // (common/decls/decls.go: guardedUnaryOp/guardedBinaryOp/guardedFunctionOp, Bindings' funcDispatch).
  describe('functions bound per overload', () => {
    cases([
      ['int(object.spec.b)', 'no such overload: int(bool)'],
      ['string(object.spec.m)', 'no such overload: string(map)'],
      ['duration(object.spec.list)', 'no such overload: duration(list)'],
      ['object.spec.replicas.getFullYear()', 'no such overload: getFullYear(int)'],
      ['object.spec.replicas.getHours()', 'no such overload: getHours(int)'],
      // Kubernetes and cel-go ext libraries (strings v2, lists, sets, Quantity, URL).
      ['object.spec.replicas.charAt(1)', 'no such overload: charAt(int, int)'],
      ['object.spec.s.indexOf(dyn(true))', 'no such overload: indexOf(string, bool)'],
      ['object.spec.m.lowerAscii()', 'no such overload: lowerAscii(map)'],
      ['object.spec.replicas.isSorted()', 'no such overload: isSorted(int)'],
      ['sets.contains(object.spec.replicas, [1])', 'no such overload: sets.contains(int, list)'],
      ['quantity(object.spec.replicas)', 'no such overload: quantity(int)'],
      ['url(object.spec.b)', 'no such overload: url(bool)'],
      // cel/library.go optional_value: a guarded unary binding.
      ['object.spec.s.value()', 'no such overload: value(string)'],
      // ext/comprehensions.go @mapInsert_map_map: the accumulator (a map) and the transform's value.
      ["{'a': 1}.transformMapEntry(k, v, dyn(1))", 'no such overload: cel.@mapInsert(map, int)'],
    ]);
  });

  // Operators bound once (common/stdlib/standard.go SingletonBinaryBinding/SingletonUnaryBinding with a
  // trait). An operand with the trait answers through its own method: MaybeNoSuchOverloadErr(other) =
  // "no such overload" (common/types/int.go Add, string.go Add/Match, bool.go Compare, ...). A receiver
  // (string, timestamp, duration) is handed the call and refuses it: NoSuchOverloadErr() (string.go,
  // timestamp.go, duration.go Receive). Any other operand: interpreter/interpretable.go evalBinary/
  // evalUnary, "no such overload: %s" with the function name.
  describe('operators bound through a trait', () => {
    cases([
      ["object.spec.replicas + 'a'", 'no such overload'],
      ['object.spec.list + 1', 'no such overload'],
      ['object.spec.b + 1', 'no such overload: _+_'],
      ['object.spec.m + 1', 'no such overload: _+_'],
      ["object.spec.replicas < 'a'", 'no such overload'],
      ['object.spec.b < 1', 'no such overload'],
      ['object.spec.m < 1', 'no such overload: _<_'],
      ['object.spec.list >= 1', 'no such overload: _>=_'],
      ['object.spec.replicas * 2.0', 'no such overload'],
      ['object.spec.s * 2', 'no such overload'],
      ['object.spec.b * 2', 'no such overload: _*_'],
      ['object.spec.list / 2', 'no such overload: _/_'],
      ['object.spec.m - 1', 'no such overload: _-_'],
      ['size(object.spec.replicas)', 'no such overload: size'],
      ['object.spec.b.size()', 'no such overload: size'],
      ['-object.spec.s', 'no such overload'],
      // common/stdlib/standard.go Negate: a bool has NegatorType but is refused by the binding itself.
      ['-object.spec.b', 'no such overload'],
      ['-object.spec.m', 'no such overload: -_'],
      // A uint has no NegatorType and is no receiver; a timestamp is a receiver (types.go trait masks).
      ['-dyn(1u)', 'no such overload: -_'],
      ["-dyn(timestamp('2020-01-01T00:00:00Z'))", 'no such overload'],
      ["size(dyn(duration('1s')))", 'no such overload'],
      ["dyn(timestamp('2020-01-01T00:00:00Z')) * 2", 'no such overload'],
      ['dyn(optional.of(1)) + 1', 'no such overload: _+_'],
      ["object.spec.replicas.matches('a')", 'no such overload: matches'],
      ["'a'.matches(object.spec.replicas)", 'no such overload'],
      // ext/lists.go sort: SingletonUnaryBinding over traits.ListerType.
      ['dyn(1).sort()', 'no such overload: sort'],
      ["dyn('a').sort()", 'no such overload'],
    ]);
  });

  // Bindings that run whatever the operands: LogicalNot's singleton has no trait and answers
  // MaybeNoSuchOverloadErr; inAggregate answers ValOrErr(rhs, "no such overload") (standard.go);
  // contains/startsWith/endsWith are declared with DisableTypeGuards and types.StringContains/
  // StringStartsWith/StringEndsWith answer MaybeNoSuchOverloadErr (common/types/string.go).
  describe('bindings that answer themselves', () => {
    cases([
      ['!object.spec.replicas', 'no such overload'],
      ['object.spec.replicas in object.spec.replicas', 'no such overload'],
      ["object.spec.replicas.startsWith('a')", 'no such overload'],
      ["object.spec.replicas.endsWith('a')", 'no such overload'],
      ['object.spec.s.contains(dyn(1))', 'no such overload'],
    ]);
  });

  // ext/lists.go flatten (type guards disabled) checks itself: ValOrErr(arg, "no such overload:
  // %v.flatten()", arg.Type()) and "%v.flatten(%v)" — Type.String(), so list(dyn) and map(dyn, dyn).
  // The first three are cel-go's TestListsRuntimeErrors (ext/lists_test.go), which expect the prefix.
  describe('flatten', () => {
    cases([
      ['dyn({}).flatten()', 'no such overload: map(dyn, dyn).flatten()'],
      ['dyn({}).flatten(0)', 'no such overload: map(dyn, dyn).flatten(int)'],
      ["[].flatten(dyn('1'))", 'no such overload: list(dyn).flatten(string)'],
      ['dyn(1).flatten()', 'no such overload: int.flatten()'],
    ]);
  });

  // Indexing goes through attribute qualification (interpreter/attributes.go refQualify), not a call.
  describe('index', () => {
    cases([
      ["object.spec.list['a']", "unsupported index type 'string' in list"],
      // Object{} values (pkg/cel/mutation/dynamic ObjectVal) are no Mapper, Lister or Indexer: missingKey.
      ['dyn(Object{})[1]', 'no such key: 1'],
      // JSONPatchVal.Get prints the index with %s (pkg/cel/mutation/jsonpatch.go).
      ['dyn(JSONPatch{})[1]', 'unsupported indexer: %!s(types.Int=1)'],
      ["dyn(JSONPatch{})['x']", 'unsupported indexer: x'],
      // pkg/cel/lazy MapValue.Find: a non-string key is MaybeNoSuchOverloadErr, a missing name missingKey.
      ['dyn(variables)[1]', 'no such overload'],
      ['1 in dyn(variables)', 'no such overload'],
      // inAggregate asks the type for the Container trait: lazy.NewMapValue's type has Indexer,
      // FieldTester and Iterable only (its Contains method is never reached).
      ["'a' in dyn(variables)", 'no such overload'],
      // inAggregate: an Object{} value is no Container.
      ["'a' in dyn(Object{})", 'no such overload'],
      ["dyn(variables)['a']", 'no such key: a'],
    ]);

    it('a JSONPatch and a lazy map are indexed by their field names', () => {
      expect(run("dyn(JSONPatch{op: 'add'})['op']")).toEqual({ value: 'add' });
      expect(run("dyn(JSONPatch{op: 'add'})[?'path'].hasValue()")).toEqual({ value: false });
      expect(run("dyn(JSONPatch{op: 'add'})[?'op'].value()")).toEqual({ value: 'add' });
    });
  });

  // Kyverno's libraries (and the cel-go ext libraries its environment adds) bind per overload.
  describe('Kyverno dialect', () => {
    cases(
      [
        ['base64.decode(dyn(1))', 'no such overload: base64.decode(int)'],
        ["regex.replace(dyn(1), 'a', 'b')", 'no such overload: regex.replace(int, string, string)'],
        ['math.bitOr(dyn(1.2), 1)', 'no such overload: math.bitOr(double, int)'],
        ["object.spec.replicas + 'a'", 'no such overload'],
        ['object.spec.b + 1', 'no such overload: _+_'],
      ],
      'kyverno',
    );
  });
});

// cel/library.go decorateOptionalOr: evalOptionalOr/evalOptionalOrValue answer plain `no such overload`
// for a left side that is no optional, without evaluating the right (cel-go#1276, in v0.28); an error on
// the left is the result as it is; the right side is the result unchecked when the left is none.
describe('optional or/orValue on values that are no optional', () => {
  it.each([
    ['dyn(1).or(optional.none())', 'no such overload'],
    ['dyn(1).orValue(2)', 'no such overload'],
    ['object.spec.replicas.orValue(1 / 0)', 'no such overload'],
    ['object.spec.missing.orValue(1)', 'no such key: missing'],
  ] as const)('%s', (expression, error) => expect(run(expression)).toEqual({ error }));
  it.each([
    ['optional.none().or(dyn(1))', 1n],
    ['object.spec.?replicas.orValue(0)', 3n],
    ['object.spec.?missing.orValue(0)', 0n],
  ] as const)('%s', (expression, value) => expect(run(expression)).toEqual({ value }));
});

// Kubernetes' library types refuse a value of another type in Equal (apiserver pkg/cel/quantity.go,
// semver.go, url.go, format.go: MaybeNoSuchOverloadErr; ip.go, cidr.go: "no such overload"). cel-go's
// `==` returns that error (interpreter/interpretable.go evalEq), `!=` is `Equal != True` (evalNe), a
// list or map stops only at a false element (common/types/list.go, map.go Equal: the error counts as
// equal), and `in` skips it (baseList.Contains). Built-in values answer false for another type.
describe('equality of Kubernetes library values with other types', () => {
  it.each([
    ['object.spec.replicas == 3 && dyn(quantity("1")) == object.spec.replicas', 'no such overload'],
    ["dyn(ip('10.0.0.1')) == object.spec.s", 'no such overload'],
    ["dyn(cidr('10.0.0.0/8')) == object.spec.s", 'no such overload'],
    ["dyn(url('/a')) == object.spec.s", 'no such overload'],
    ["dyn(semver('1.0.0')) == object.spec.b", 'no such overload'],
    ["dyn(format.dns1123Label()) == object.spec.list", 'no such overload'],
    ["dyn(quantity('1')) == dyn(ip('10.0.0.1'))", 'no such overload'],
    ["[dyn(quantity('1'))].exists(x, x == object.spec.replicas)", 'no such overload'],
  ] as const)('%s fails', (expression, error) => expect(run(expression)).toEqual({ error }));
  it.each([
    ["dyn(quantity('1')) != object.spec.replicas", true],
    ["object.spec.replicas == dyn(quantity('3'))", false],
    ["[dyn(quantity('1'))] == [object.spec.replicas]", true],
    ["{'a': dyn(url('/a'))} == {'a': object.spec.s}", true],
    ["[dyn(quantity('1')), dyn(1)] == [object.spec.replicas, dyn(2)]", false],
    ["object.spec.replicas in [dyn(quantity('3'))]", false],
    ["dyn(quantity('1')) in object.spec.list", false],
    ["dyn(quantity('1')) == null", false],
    ["quantity('1') == quantity('1000m') && format.dns1123Label() == format.dns1123Label()", true],
  ] as const)('%s is %s', (expression, value) => expect(run(expression)).toEqual({ value }));
});
