/**
 * `{{ }}` variables and `$()` references where Kyverno's own code (pkg/engine/variables/vars.go,
 * pkg/engine/jsonutils/traverse.go) decides a corner the vectors do not reach.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { JsonContext } from '../../src/kyverno/context/context.js';
import { kyvernoQuery } from '../../src/kyverno/context/query.js';
import { substituteAll } from '../../src/kyverno/context/variables.js';

const data: JsonObject = {
  request: { operation: 'CREATE', object: { metadata: { name: 'web', labels: { app: 'shop', empty: null } } } },
};

const subst = (document: JsonValue) => substituteAll(document, { ctx: new JsonContext(kyvernoQuery, data), isDelete: false });

describe('map keys', () => {
  it('a key whose variable resolves to null keeps its own text (traverseObject: newKey == nil)', () => {
    expect(subst({ metadata: { '{{ request.object.metadata.labels.empty }}': 'x', b: 'y' } })).toEqual({
      metadata: { '{{ request.object.metadata.labels.empty }}': 'x', b: 'y' },
    });
    expect(subst({ "{{ `null` }}": '{{ request.object.metadata.name }}' })).toEqual({ '{{ `null` }}': 'web' });
  });
  it('a key resolving to another non-string is still an error', () => {
    expect(() => subst({ '{{ `1` }}': 'x' })).toThrow(/must resolve to a string/);
  });
});
