/**
 * substituteMember (the rule's `mutate`, or nothing, read from its whole-rule substitution) against
 * ownMember(substituteAll(…)): the same member, the same queries in the same order, and the same error —
 * a failing variable or the document's size count tripping — for frozen policy documents (which take a
 * substitution plan and copy only the member read) and for documents that take the general walk.
 */
import { describe, expect, it } from 'vitest';
import { ReviewGuard } from '../../src/guard/index.js';
import { isJsonObject, ownMember, type JsonObject, type JsonValue } from '../../src/json/index.js';
import { JsonContext } from '../../src/kyverno/context/context.js';
import { substituteAll, substituteMember } from '../../src/kyverno/context/variables.js';
import { kyvernoQuery } from '../../src/kyverno/context/query.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

const data: JsonObject = { request: { operation: 'CREATE', object: { metadata: { name: 'web', labels: { team: 'a' } } } }, big: 'x'.repeat(40) };

/** The result (or error message) and the queries run, in order. */
function run(how: (scope: { ctx: JsonContext; isDelete: boolean }) => JsonValue | undefined, maxValueBytes = 1 << 20) {
  const queries: string[] = [];
  const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes });
  const ctx = new JsonContext((expression, d, g, sizes) => {
    queries.push(expression);
    return kyvernoQuery(expression, d, g, sizes);
  }, data, guard);
  try {
    return { value: how({ ctx, isDelete: false }), queries };
  } catch (error) {
    return { error: (error as Error).message, queries };
  }
}

function same(document: JsonObject, key: string | undefined, maxValueBytes?: number) {
  const expected = run((scope) => {
    const s = substituteAll(document, scope);
    return key !== undefined && isJsonObject(s) ? ownMember(s, key) : undefined;
  }, maxValueBytes);
  const actual = run((scope) => substituteMember(document, key, scope), maxValueBytes);
  expect(actual).toEqual(expected);
  return actual;
}

const rule = (): JsonObject => ({
  name: 'r',
  context: [{ name: 'c', variable: { value: '{{ request.operation }}' } }],
  preconditions: { all: [{ key: '{{ request.object.metadata.name }}', operator: 'Equals', value: 'web' }] },
  mutate: {
    patchStrategicMerge: { metadata: { labels: { owner: '{{ request.object.metadata.labels.team }}', fixed: 'x' } } },
    targets: [{ name: '{{ request.operation }}-{{ request.object.metadata.name }}' }],
  },
  after: { note: 'team {{ request.object.metadata.labels.team }}' },
});

describe('substituteMember', () => {
  for (const frozen of [true, false]) {
    const doc = () => (frozen ? deepFreeze(rule()) : rule());
    const how = frozen ? 'a frozen document (plan)' : 'a document the general walk takes';
    it(`${how}: mutate, or nothing, as substituteAll gives it, the same queries in order`, () => {
      const mutate = same(doc(), 'mutate');
      expect(mutate.value).toEqual({
        patchStrategicMerge: { metadata: { labels: { owner: 'a', fixed: 'x' } } },
        targets: [{ name: 'CREATE-web' }],
      });
      expect(mutate.queries.length).toBe(6);
      same(doc(), undefined);
      same(doc(), 'absent');
    });
    it(`${how}: a failing variable after the member fails the same way`, () => {
      const bad = rule();
      (bad.after as JsonObject).note = '{{ nothere.x }}';
      const r = same(frozen ? deepFreeze(bad) : bad, 'mutate');
      expect(r.error).toContain('nothere');
    });
    it(`${how}: the size count is the whole document's`, () => {
      const big = rule();
      (big.after as JsonObject).note = '{{ big }}';
      (big.context as JsonObject[])[0] = { name: 'c', variable: { value: '{{ big }} {{ big }}' } };
      // ~85 bytes inserted before the member, ~12 in it, ~42 after: a bound of 130 trips at the last
      // variable, only when the whole document counts as one.
      const errors = [60, 130, 1000].map((bound) => same(frozen ? deepFreeze(structuredClone(big)) : structuredClone(big), 'mutate', bound).error);
      expect(errors.map((e) => e !== undefined)).toEqual([true, true, false]);
    });
  }
  it('a document without variables gives its own member', () => {
    const doc = deepFreeze({ name: 'r', mutate: { patchStrategicMerge: { a: 'b' } } });
    expect(run((scope) => substituteMember(doc, 'mutate', scope)).value).toBe(doc.mutate);
  });
  it('a member without variables comes back as it is, the others still substituted', () => {
    const doc = deepFreeze({ pre: '{{ request.operation }}', mutate: { patchStrategicMerge: { a: 'b' } } });
    const r = same(doc, 'mutate');
    expect(r.value).toBe(doc.mutate);
    expect(r.queries).toEqual(['request.operation']);
  });
});
