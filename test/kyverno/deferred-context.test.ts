/**
 * Rule context entries load as Kyverno's deferred loaders do (pkg/engine/context/deferred.go, on by
 * default; contextloaderfactory.go registers every entry): when a query first names them. So an entry
 * nothing reads never fails the rule, an entry first read after an earlier foreach entry changed the
 * resource sees the changed `request.object`, and the entry's name is one key of the context (Kyverno
 * pushes it as one tag: a dot in it is no path). Kyverno's own tests of the loader: context/deferred_test.go.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function run(rule: JsonObject, subject: JsonObject = pod('p', ['a', 'b'])) {
  const result = await runKyvernoPolicies([compiled(clusterPolicy('deferred', [{ name: 'r', ...rule }], { background: false }))], { request: podRequest(subject) });
  const [outcome] = result.policies.flatMap((p) => p.rules);
  return { outcome, object: result.object as JsonObject };
}

const annotate = (value: string) => ({ patchStrategicMerge: { metadata: { annotations: { x: value } } } });

describe('deferred context entries', () => {
  it('an entry no query names is not loaded: its failure is no error', async () => {
    const { outcome, object } = await run({
      context: [
        { name: 'missing', configMap: { name: 'not-there', namespace: 'default' } },
        { name: 'broken', variable: { jmesPath: 'request.object.metadata.nothere' } },
      ],
      mutate: annotate('{{ request.object.metadata.name }}'),
    });
    expect(outcome.status).toBe('applied');
    expect((object.metadata as JsonObject).annotations).toEqual({ x: 'p' });
  });

  it('an entry a query names is loaded then, and its failure fails the rule', async () => {
    const { outcome } = await run({
      context: [{ name: 'broken', variable: { jmesPath: 'request.object.metadata.nothere' } }],
      mutate: annotate('{{ broken }}'),
    });
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain('nothere');
  });

  it('a condition that is never evaluated loads nothing (a foreach rule: no whole-rule substitution)', async () => {
    const rule = (flagFirst: boolean) => {
      const conditions = [
        { key: '{{ request.operation }}', operator: 'Equals', value: 'CREATE' },
        { key: '{{ missing.data.flag }}', operator: 'Equals', value: 'on' },
      ];
      return {
        context: [{ name: 'missing', configMap: { name: 'not-there', namespace: 'default' } }],
        preconditions: { any: flagFirst ? conditions.reverse() : conditions },
        mutate: { foreach: [{ list: "['x']", patchStrategicMerge: { metadata: { annotations: { x: 'yes' } } } }] },
      };
    };
    expect((await run(rule(false))).outcome.status).toBe('applied');
    const failed = (await run(rule(true))).outcome;
    expect(failed.status).toBe('error');
    expect(failed.message).toContain('not-there');
  });

  it('a rule without foreach substitutes the whole rule, so a condition that is never evaluated still loads its entry', async () => {
    const { outcome } = await run({
      context: [{ name: 'missing', configMap: { name: 'not-there', namespace: 'default' } }],
      preconditions: {
        any: [
          { key: '{{ request.operation }}', operator: 'Equals', value: 'CREATE' },
          { key: '{{ missing.data.flag }}', operator: 'Equals', value: 'on' },
        ],
      },
      mutate: annotate('yes'),
    });
    expect(outcome.status).toBe('error');
  });

  it('an entry first read in a later foreach entry sees the resource as the earlier entries left it', async () => {
    const { outcome, object } = await run({
      context: [{ name: 'count', variable: { jmesPath: 'length(request.object.spec.containers)' } }],
      mutate: {
        foreach: [
          {
            list: "['c']",
            patchesJson6902: '- op: add\n  path: /spec/containers/-\n  value: {name: c, image: c}',
          },
          { list: "['x']", patchesJson6902: "- op: add\n  path: /metadata/annotations\n  value: {count: '{{ count }}'}" },
        ],
      },
    });
    expect(outcome.status).toBe('applied');
    expect((object.metadata as JsonObject).annotations).toEqual({ count: '3' });
  });

  it("an entry's name is one key: a dot in it is no path", async () => {
    const quoted = await run({ context: [{ name: 'my.var', variable: { value: 'v' } }], mutate: annotate('{{ "my.var" }}') });
    expect(quoted.outcome.status).toBe('applied');
    expect((quoted.object.metadata as JsonObject).annotations).toEqual({ x: 'v' });
    const dotted = await run({ context: [{ name: 'my.var', variable: { value: 'v' } }], mutate: annotate('{{ my.var }}') });
    expect(dotted.outcome.status).toBe('error');
  });

  it('an entry loading may read the entries registered before it', async () => {
    const { object } = await run({
      context: [
        { name: 'first', variable: { value: 'one' } },
        { name: 'second', variable: { jmesPath: "join('-', [first, 'two'])" } },
      ],
      mutate: annotate('{{ second }}'),
    });
    expect((object.metadata as JsonObject).annotations).toEqual({ x: 'one-two' });
  });

  it('an entry first loaded inside a foreach element keeps its value for the next elements', async () => {
    const { object } = await run({
      context: [{ name: 'prefix', variable: { value: 'img-' } }],
      mutate: {
        foreach: [
          {
            list: 'request.object.spec.containers',
            patchesJson6902: '- op: replace\n  path: /spec/containers/{{ elementIndex }}/image\n  value: "{{ prefix }}{{ element.name }}"',
          },
        ],
      },
    });
    expect(((object.spec as JsonObject).containers as JsonObject[]).map((c) => c.image)).toEqual(['img-a', 'img-b']);
  });
});
