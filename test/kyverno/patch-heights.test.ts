/**
 * The depth bound of a rule's output (1000 levels) at its edge, for each kind of patch. A rule's outcome
 * skips walking its output when no patch of the rule can have reached the bound (src/kyverno/patchers/
 * patch-heights.ts) and walks it otherwise, so each case must answer as the walk does: applied at the
 * bound, an error with the walk's message one level past it. The patches: a JSON patch value and a
 * strategic merge overlay built by a variable, the same in a foreach, and a `move` that carries a
 * subtree of the resource one level down.
 */
import { describe, expect, it } from 'vitest';
import { heightUpTo, type JsonObject, type JsonValue } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const LIMIT = 1000;
const TOO_DEEP = `the mutated resource nests deeper than ${LIMIT} levels`;

/** A list nested `levels` deep as JSON text (parse_json reads it back: a value of that height). */
const deepText = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

const parsed = { name: 'deep', variable: { jmesPath: 'parse_json(request.object.metadata.annotations.deep)' } };

async function outcome(rule: JsonObject, object: JsonObject): Promise<{ status: string; message: string; object: JsonValue }> {
  const result = await runKyvernoPolicies([compiled(clusterPolicy('heights', [{ name: 'r', ...rule }]))], { request: podRequest(object) });
  const [r] = result.policies[0].rules;
  return { status: r.status, message: r.message, object: result.object };
}

/** A Pod whose annotation `deep` holds a list `levels` deep, as text. */
function podWith(levels: number): JsonObject {
  const p = pod('web', ['web']) as JsonObject & { metadata: JsonObject };
  p.metadata.annotations = { deep: deepText(levels) };
  return p;
}

describe('the depth bound of a rule output, at its edge', () => {
  // Each case: the rule, and the value height that puts the output exactly at the bound.
  const cases: [string, JsonObject, number][] = [
    // JSON patch text (YAML stops at 500 levels): the value, two levels into the text, fits its reader.
    ['a JSON patch add of a variable', { context: [parsed], mutate: { patchesJson6902: '[{"op": "add", "path": "/spec/containers/0/x", "value": {{ deep }}}]' } }, LIMIT - 4],
    ['a strategic merge overlay holding a variable', { context: [parsed], mutate: { patchStrategicMerge: { spec: { x: '{{ deep }}' } } } }, LIMIT - 2],
    [
      'a foreach JSON patch',
      { context: [parsed], mutate: { foreach: [{ list: 'request.object.spec.containers', patchesJson6902: '[{"op": "add", "path": "/spec/containers/{{elementIndex}}/x", "value": {{ deep }}}]' }] } },
      LIMIT - 4,
    ],
    [
      'a foreach strategic merge',
      { context: [parsed], mutate: { foreach: [{ list: 'request.object.spec.containers', patchStrategicMerge: { spec: { containers: [{ name: '{{ element.name }}', x: '{{ deep }}' }] } } }] } },
      LIMIT - 4,
    ],
  ];
  for (const [what, rule, fits] of cases) {
    it(`${what}: applied at the bound, an error one level past it`, async () => {
      const at = await outcome(rule, podWith(fits));
      expect([at.status, at.message]).toEqual(['applied', 'mutated Pod/web in namespace default']);
      expect(heightUpTo(at.object, 2 * LIMIT)).toBe(LIMIT);
      const past = await outcome(rule, podWith(fits + 1));
      expect([past.status, past.message]).toEqual(['error', TOO_DEEP]);
    });
  }

  it('a move one level down: applied at the bound, an error one level past it', async () => {
    const rule = { mutate: { patchesJson6902: '- op: add\n  path: /spec/b\n  value: {}\n- op: move\n  from: /spec/a\n  path: /spec/b/a' } };
    // The Pod holds `spec.a` `levels` deep (it fits the bound itself); the move puts it one level lower.
    const moving = (levels: number) => {
      let a: JsonValue = [];
      for (let i = 1; i < levels; i++) a = [a];
      return pod('web', ['web'], { a });
    };
    const at = await outcome(rule, moving(LIMIT - 3));
    expect([at.status, at.message]).toEqual(['applied', 'mutated Pod/web in namespace default']);
    expect(heightUpTo(at.object, 2 * LIMIT)).toBe(LIMIT);
    const past = await outcome(rule, moving(LIMIT - 2));
    expect([past.status, past.message]).toEqual(['error', TOO_DEEP]);
  });
});
