/**
 * An empty `foreach` list, as Kyverno takes it: its policy validation accepts it (Mutate.Validate asks
 * `len(foreach) > 0`), and at admission a rule's empty foreach still runs — the mutate handler tests
 * `ForEachMutation != nil` — and skips with "0 elements processed", a patch beside it ignored; an entry's
 * empty nested `foreach` is no nested foreach (`len(GetForEachMutation()) > 0`), so the entry's own
 * patch applies. Amender refused such policies ("must be a non-empty list").
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, pod, podRequest } from './helpers/requests.js';

async function run(mutate: JsonObject) {
  const compiled = compileKyvernoPolicy(clusterPolicy('p', [{ name: 'r', mutate }]));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const result = await runKyvernoPolicies([compiled.policy], { request: podRequest(pod('web', ['a', 'b'])) });
  return { rule: result.policies[0].rules[0], labels: ((result.object as JsonObject).metadata as JsonObject).labels };
}

const labels = { metadata: { labels: { seen: 'yes' } } };

describe('an empty foreach list', () => {
  it("a rule's: accepted, skipped with Kyverno's message", async () => {
    expect(await run({ foreach: [] })).toEqual({ rule: expect.objectContaining({ status: 'skipped', message: '0 elements processed' }), labels: undefined });
  });
  it("a rule's beside a patch: the foreach runs, the patch is ignored", async () => {
    expect(await run({ foreach: [], patchStrategicMerge: labels })).toMatchObject({ rule: { status: 'skipped' }, labels: undefined });
  });
  it("an entry's: no nested foreach, the entry's patch applies per element", async () => {
    const entry = { list: 'request.object.spec.containers', foreach: [], patchStrategicMerge: { metadata: { labels: { '{{ element.name }}': 'seen' } } } };
    expect(await run({ foreach: [entry] })).toMatchObject({ rule: { status: 'applied' }, labels: { a: 'seen', b: 'seen' } });
  });
});
