/**
 * While a deferred context entry loads, Kyverno lets its queries load only the entries registered before
 * it (pkg/engine/context/deferred.go @ 111e07bbecc6: LoadMatching reads `d.index` once per query), but
 * loadData clears that bound when any load ends (`defer d.setLevelAndIndex(-1, -1)`), the load of an
 * earlier entry the entry itself asked for included. So after reading an earlier entry, the rest of the
 * entry's load may read a later one. A foreach entry shows it: only its patch is substituted, so the
 * entries load in the order the patch's query asks for them.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function run(context: JsonObject[]) {
  const rule = {
    name: 'r',
    mutate: { foreach: [{ list: "['x']", context, patchStrategicMerge: { metadata: { annotations: { x: '{{ to_string(c) }}' } } } }] },
  };
  const result = await runKyvernoPolicies([compiled(clusterPolicy('bound', [rule], { background: false }))], { request: podRequest(pod('p', ['a'])) });
  const [outcome] = result.policies.flatMap((p) => p.rules);
  const annotations = ((result.object as JsonObject).metadata as JsonObject).annotations as JsonObject | undefined;
  return { status: outcome.status, message: outcome.message, x: annotations?.x };
}

const a = { name: 'a', variable: { value: 'A' } };
const d = { name: 'd', variable: { value: 'D' } };

describe('the bound of a loading context entry', () => {
  it('holds until a load ends: an entry cannot read a later one first', async () => {
    const r = await run([{ name: 'c', variable: { value: '{{ d }}' } }, d]);
    expect(r.status).toBe('error');
    expect(r.message).toContain('Unknown key "d" in path');
  });

  it('is gone once the entry has read an earlier entry: its next query reads a later one', async () => {
    const r = await run([a, { name: 'c', variable: { value: '{{ a }}-{{ d }}' } }, d]);
    expect(r.status).toBe('applied');
    expect(r.x).toBe('A-D');
  });

  it('holds for the rest of the query that loaded the earlier entry', async () => {
    const r = await run([a, { name: 'c', variable: { jmesPath: '[a, d]' } }, d]);
    expect(r.status).toBe('applied');
    expect(r.x).toBe('["A",null]');
  });
});
