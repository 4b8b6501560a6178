/**
 * A rule's context entries are added to the context its variables read, each when a query first names it
 * (Kyverno's deferred loading). Added copy-on-write, each entry copied the whole context root, which holds
 * every entry before it: a rule of 12,000 entries (a 0.7 MB policy) copied 72 million members per review,
 * past the deadline, for every review the policy matched; and finding the entries a query names tested
 * every entry's pattern against it. A root nobody else holds now takes entries in place, and names are
 * looked up; the cases after the first pin where the root is held: a query result naming the root, the
 * next rule, the next element.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function apply(rules: JsonObject[], containers = ['c']): Promise<JsonObject> {
  const result = await runKyvernoPolicies([compiled(clusterPolicy('p', rules))], { request: podRequest(pod('web', containers)) });
  for (const rule of result.policies[0].rules) expect(rule.status, rule.message).toBe('applied');
  return result.object as JsonObject;
}

const annotations = (object: JsonObject) => (object.metadata as JsonObject).annotations;

describe('context entries', () => {
  it('12,000 of them, the last 1,000 each reading the one before, give the last one’s value', async () => {
    const context: JsonObject[] = [];
    for (let i = 0; i < 12_000; i++) context.push({ name: `v${i}`, variable: i < 11_000 ? { value: i } : { jmesPath: `add(v${i - 1}, \`1\`)` } });
    const object = await apply([{ name: 'r', context, mutate: { patchStrategicMerge: { metadata: { annotations: { x: '{{ to_string(v11999) }}' } } } } }]);
    expect(annotations(object)).toEqual({ x: '11999' });
  });

  it('an entry holding the whole context (`@`) keeps it as it was when it loaded, without the entries loaded after it', async () => {
    // Each annotation's query loads, in order, the entries it names (the quoted names count, as in
    // Kyverno's pattern): the first loads first, all and later; the second then loads wrapped, whose
    // root holds those three but not wrapped itself.
    const context: JsonObject[] = [
      { name: 'first', variable: { value: 'one' } },
      { name: 'all', variable: { jmesPath: '@' } },
      { name: 'wrapped', variable: { jmesPath: '{inner: @}' } },
      { name: 'later', variable: { value: 'two' } },
    ];
    const object = await apply([
      {
        name: 'r',
        context,
        mutate: {
          patchStrategicMerge: {
            metadata: {
              annotations: {
                all: "{{ join(',', [to_string(contains(keys(all), 'first')), to_string(contains(keys(all), 'later')), to_string(contains(keys(all), 'all'))]) }}",
                wrapped: "{{ join(',', [to_string(contains(keys(wrapped.inner), 'all')), to_string(contains(keys(wrapped.inner), 'later')), to_string(contains(keys(wrapped.inner), 'wrapped'))]) }}",
              },
            },
          },
        },
      },
    ]);
    expect(annotations(object)).toEqual({ all: 'true,false,false', wrapped: 'true,true,false' });
  });

  it('a rule does not see the entries of the rule before it', async () => {
    const object = await apply([
      { name: 'one', context: [{ name: 'fromOne', variable: { value: 'set' } }], mutate: { patchStrategicMerge: { metadata: { annotations: { one: '{{ fromOne }}' } } } } },
      {
        name: 'two',
        context: [
          { name: 'mine', variable: { value: 'x' } },
          { name: 'seen', variable: { jmesPath: 'fromOne', default: 'unset' } },
        ],
        mutate: { patchStrategicMerge: { metadata: { annotations: { two: '{{ seen }}' } } } },
      },
    ]);
    expect(annotations(object)).toEqual({ one: 'set', two: 'unset' });
  });

  it('a foreach element does not see the entries of the element before it', async () => {
    const object = await apply(
      [
        {
          name: 'r',
          context: [{ name: 'ruleLevel', variable: { value: 'r' } }],
          mutate: {
            foreach: [
              {
                list: 'request.object.spec.containers',
                context: [
                  { name: 'before', variable: { jmesPath: 'named', default: 'unset' } },
                  { name: 'named', variable: { jmesPath: 'element.name' } },
                ],
                patchStrategicMerge: { metadata: { annotations: { '{{ element.name }}': '{{ before }}-{{ named }}-{{ ruleLevel }}' } } },
              },
            ],
          },
        },
      ],
      ['a', 'b', 'c'],
    );
    expect(annotations(object)).toEqual({ a: 'unset-a-r', b: 'unset-b-r', c: 'unset-c-r' });
  });
});
