import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation, RUNTIME_CEL_COST_BUDGET, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS } from '../../../src/cel/index.js';
import type { JsonValue } from '../../../src/json/index.js';
import { cidrFrom, costOf, formatNamed, ipFrom, quantityOf, resourceCheck } from './cost-fixtures.js';

/**
 * Library call costs in cel-go / Kubernetes units (k8s.io/apiserver/pkg/cel/library/cost.go and the
 * cel-go extensions' trackers), asked the way an engine asks: function name, arguments with the
 * receiver first, result.
 */
describe('library call costs', () => {
  it('authorization checks are fixed at 350,000; builders and accessors at 1', () => {
    expect(costOf('check', [resourceCheck(), 'get'], null)).toBe(350_000);
    expect(costOf('group', [null, 'apps'], null)).toBe(1);
    expect(costOf('allowed', [null], true)).toBe(1);
  });

  it('selectors cost their parse and an allocation per possible requirement', () => {
    // 10 (list) + ceil(3 * 0.1) + ceil(3 * 0.5) * (10 + 40)
    expect(costOf('fieldSelector', [resourceCheck(), 'a=b'], null)).toBe(111);
    expect(costOf('labelSelector', [resourceCheck(), ''], null)).toBe(10);
  });

  it('list functions cost one traversal of the receiver', () => {
    expect(costOf('isSorted', [[1n, 2n, 3n, 4n]], true)).toBe(4);
    expect(costOf('sum', [[[1n], [2n, 3n]]], 0n)).toBe(3);
    expect(costOf('indexOf', ['abcdefghijklmnopqrst', 'x'], -1n)).toBe(2); // 20 bytes * 0.1, truncated
    expect(costOf('indexOf', ['ééééé', 'x'], -1n)).toBe(1); // 10 UTF-8 bytes
    expect(costOf('includes', [[{ a: 'xyzxyzxyzx' }], 1n], false)).toBe(1); // key: 1 byte -> 0, value: 10 bytes -> 1
  });

  it('string functions cost traversals of their input (or result, for join)', () => {
    expect(costOf('substring', ['a'.repeat(25), 1n], '')).toBe(3);
    expect(costOf('split', ['a,b,c,d,e,f,g,h,i,j,k', ','], [])).toBe(5);
    expect(costOf('join', [['a', 'b']], 'abc')).toBe(1);
    expect(costOf('strings.quote', ['x'.repeat(26)], '')).toBe(3);
  });

  it('regex functions cost string size times regex size', () => {
    // ceil((1 + 16) * 0.1) * ceil(6 * 0.25)
    expect(costOf('find', ['abcdefghijklmnop', '[a-z]+'], '')).toBe(4);
    expect(costOf('matches', ['abcdefghijklmnop', '[a-z]+'], true)).toBe(4);
    expect(costOf('findAll', ['', 'a'], [])).toBe(1);
  });

  it('parsers cost a traversal of their input; accessors 1', () => {
    expect(costOf('url', ['https:://kubernetes.io/'], null)).toBe(3);
    expect(costOf('getHostname', [null], '')).toBe(1);
    expect(costOf('quantity', ['200M'], null)).toBe(1);
    expect(costOf('compareTo', [quantityOf('1'), quantityOf('2')], -1n)).toBe(1);
    expect(costOf('semver', ['1.2.3-alpha.1+build.5'], null)).toBe(3);
    expect(costOf('ip.isCanonical', ['2001:db8::68'], true)).toBe(3);
    expect(costOf('ip', [cidrFrom('10.0.0.0/8')], null)).toBe(1);
    expect(costOf('ip', ['10.0.0.1'], null)).toBe(1);
  });

  it('containment costs depend on the argument kind', () => {
    expect(costOf('containsIP', [cidrFrom('10.0.0.0/8'), ipFrom('10.0.0.1')], true)).toBe(1);
    expect(costOf('containsIP', [cidrFrom('10.0.0.0/8'), '10.0.0.1'], true)).toBe(2);
    expect(costOf('containsCIDR', [cidrFrom('10.0.0.0/8'), cidrFrom('10.0.0.0/9')], true)).toBe(3);
    expect(costOf('containsCIDR', [cidrFrom('10.0.0.0/8'), '10.0.0.0/9'], true)).toBe(4);
  });

  it('format validation costs string size times the format regex estimate', () => {
    // ceil((1 + 3) * 0.1) * ceil(30 * 0.25)
    expect(costOf('validate', [formatNamed('dns1123Label'), 'abc'], null)).toBe(8);
    expect(costOf('format.named', ['uuid'], null)).toBe(1);
    // uri: format.go's urlLength (1103), govalidator's URL pattern size: ceil(22 * 0.1) * ceil(1103 * 0.25)
    expect(costOf('validate', [formatNamed('uri'), 'https://example.com/x'], null)).toBe(828);
    // byte: base64Length (84); uuid and datetime: the strfmt patterns' lengths (70, 71)
    expect(costOf('validate', [formatNamed('byte'), 'aGk='], null)).toBe(21);
    expect(costOf('validate', [formatNamed('uuid'), 'x'], null)).toBe(18);
    expect(costOf('validate', [formatNamed('datetime'), 'x'], null)).toBe(18);
  });

  it('list extension costs follow cel-go trackers (size * factor + call + list)', () => {
    expect(costOf('lists.range', [10n], new Array(10).fill(0n))).toBe(21);
    expect(costOf('sort', [[3n, 2n, 1n]], [1n, 2n, 3n])).toBe(29);
    expect(costOf('sort', [['b', 'a']], ['a', 'b'])).toBe(19); // (2 + 0.1) * 4 + 11
    expect(costOf('distinct', [[1n, 1n]], [1n])).toBe(19);
    expect(costOf('slice', [[1n, 2n, 3n], 0n, 2n], [1n, 2n])).toBe(13);
    expect(costOf('reverse', ['abc'], 'cba')).toBeUndefined(); // the string reverse has the default cost
    expect(costOf('flatten', [[[1n], [2n]], 1n], [1n, 2n])).toBe(13);
    // sortBy is charged by its key list
    expect(costOf('@sortByAssociatedKeys', [['x', 'y'], [2n, 1n]], ['y', 'x'])).toBe(19);
  });

  it('set operations cost the call and one comparison per pair (two for equivalence)', () => {
    // cel-go's ext/sets tracker; Kubernetes' cost_test.go: sets.contains([], []) is 21 = 2 lists + 1.
    expect(costOf('sets.contains', [[1n, 2n, 3n], [1n, 2n]], true)).toBe(7);
    expect(costOf('sets.intersects', [[], []], false)).toBe(1);
    expect(costOf('sets.equivalent', [[1n, 2n, 3n], [1n, 2n]], false)).toBe(13);
  });

  it('jsonpatch.escapeKey costs a traversal', () => {
    expect(costOf('jsonpatch.escapeKey', ['k8s.io/my~label'], '')).toBe(2);
  });
});

describe('list extension costs of calls that fail or would pass the limit', () => {
  const run = (expr: string, object: JsonValue, budget = RUNTIME_CEL_COST_BUDGET) => {
    const r = compileExpression(expr, 'variable', { params: false });
    if (!r.ok) throw new Error(r.message);
    return new Evaluation({ object }, { budget }).evaluate(r.compiled);
  };

  it('a failed slice costs its error result as cel-go trackListOutputSize prices it: 1 + 1 + 10', () => {
    expect(costOf('slice', [[1n], 0n, 5n], null)).toBe(12);
    expect(run('object.l.slice(0, 5)', { l: [1] })).toMatchObject({ ok: false, kind: 'runtime', cost: 14 });
  });

  it('lists.range(n) past the per-call limit stops there, charged n + 11, as kube-apiserver stops after building it', () => {
    expect(run('lists.range(object.n)', { n: 2_000_000 })).toEqual({
      ok: false,
      kind: 'runtime',
      message: "expression 'lists.range(object.n)' resulted in error: operation cancelled: actual cost limit exceeded",
      cost: 2_000_013,
    });
    // Past what is left of the budget, the budget is exhausted (matchConditions share 2,500,000).
    expect(run('lists.range(object.n)', { n: 3_000_000 }, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS)).toMatchObject({ ok: false, kind: 'budget' });
    expect(run('lists.range(object.n).size()', { n: 999_989 })).toMatchObject({ ok: false, kind: 'runtime', cost: 1_000_002 });
    expect(run('lists.range(object.n).size()', { n: 999_986 })).toMatchObject({ ok: true, value: 999_986n, cost: 1_000_000 });
  });
});
