/**
 * A failed rule's message names the step that failed as Kyverno's does (what `kubectl` shows in a denial
 * or warning, and the CLI prints):
 * - pkg/engine/mutate/mutation.go Mutate / ForEach: `variable substitution failed: …`, `failed to patch
 *   resource: …` (json-patch's and kyaml's errors as they are), `empty mutate rule` alone;
 * - pkg/engine/engine.go invokeRuleHandler: `failed to load context: …`, `failed to evaluate preconditions: …`;
 * - pkg/engine/variables/evaluate.go: `failed to substitute variables in condition key|value: …`;
 * - pkg/engine/variables/vars.go: `failed to resolve <variable> at path <pointer>: …` ('' for the root);
 * - pkg/engine/handlers/mutation/common.go: `failed to evaluate list <list>: <err>: <err>` (the error
 *   twice), `failed to mutate elements: …` around an element's failure (once per nesting level), and
 *   `failed to load to mutate.foreach[<element index>].context`, `failed to evaluate
 *   mutate.foreach[<element index>].preconditions`.
 * - pkg/engine/context/evaluate.go Query: `JMESPath query failed: …` before a search's error, `incorrect query
 *   <query>: …` before a compile error; a deferred entry's load error is returned as it is.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function message(rule: JsonObject): Promise<string> {
  const policy = compiled(clusterPolicy('p', [{ name: 'r', ...rule }]));
  const result = await runKyvernoPolicies([policy], { request: podRequest(pod('web', ['a', 'b'])) });
  const outcome = result.policies[0].rules[0];
  expect(outcome.status).toBe('error');
  return outcome.message;
}

const NOPE = 'JMESPath query failed: Unknown key "nope" in path';
const label = (value: string) => ({ patchStrategicMerge: { metadata: { labels: { a: value } } } });
const replaceMissing = '- op: replace\n  path: /metadata/nope/a\n  value: x';
const MISSING = 'replace operation does not apply: doc is missing path: /metadata/nope/a: missing value';

describe('a plain rule', () => {
  it.each([
    ['a variable in the overlay', { mutate: label('{{ request.object.metadata.nope }}') }, `variable substitution failed: failed to resolve request.object.metadata.nope at path /mutate/patchStrategicMerge/metadata/labels/a: ${NOPE}`],
    [
      'a variable in a JSON patch',
      { mutate: { patchesJson6902: '- op: add\n  path: /metadata/labels/a\n  value: "{{ request.object.metadata.nope }}"' } },
      `variable substitution failed: failed to resolve request.object.metadata.nope at path /mutate/patchesJson6902: ${NOPE}`,
    ],
    ['a JSON patch operation', { mutate: { patchesJson6902: replaceMissing } }, `failed to patch resource: ${MISSING}`],
    [
      'a variable that does not compile',
      { mutate: label('{{ request.object.metadata.name) }}') },
      'variable substitution failed: failed to resolve request.object.metadata.name) at path /mutate/patchStrategicMerge/metadata/labels/a: incorrect query request.object.metadata.name): SyntaxError: Unexpected token at the end of the expression: tRparen',
    ],
    [
      'a context entry that fails to load (its error as the loader words it, its own query prefixed once)',
      { context: [{ name: 'v', variable: { jmesPath: 'request.object.metadata.nope' } }], mutate: label('{{ v }}') },
      `variable substitution failed: failed to resolve v at path /mutate/patchStrategicMerge/metadata/labels/a: failed to apply jmespath request.object.metadata.nope to variable <nil>: ${NOPE}`,
    ],
    [
      "an entry whose query loads another that fails (the other's error is not the query's)",
      {
        context: [
          { name: 'v', variable: { jmesPath: 'request.object.metadata.nope' } },
          { name: 'w', variable: { jmesPath: 'v' } },
        ],
        mutate: label('{{ w }}'),
      },
      `variable substitution failed: failed to resolve w at path /mutate/patchStrategicMerge/metadata/labels/a: failed to apply jmespath v to variable <nil>: failed to apply jmespath request.object.metadata.nope to variable <nil>: ${NOPE}`,
    ],
    [
      'a precondition key',
      { preconditions: { all: [{ key: '{{ request.object.metadata.nope }}', operator: 'Equals', value: 'x' }] }, mutate: label('b') },
      `failed to evaluate preconditions: failed to substitute variables in condition key: failed to resolve request.object.metadata.nope at path : ${NOPE}`,
    ],
    [
      'a precondition value',
      { preconditions: { any: [{ key: 'x', operator: 'Equals', value: '{{ request.object.metadata.nope }}' }] }, mutate: label('b') },
      `failed to evaluate preconditions: failed to substitute variables in condition value: failed to resolve request.object.metadata.nope at path : ${NOPE}`,
    ],
  ] as const)('%s', async (_, rule, expected) => {
    expect(await message(rule as unknown as JsonObject)).toBe(expected);
  });
});

describe('a foreach rule', () => {
  const containers = 'request.object.spec.containers';
  it.each([
    ['its list', { list: 'request.object.nope', ...label('b') }, `failed to evaluate list request.object.nope: ${NOPE}: ${NOPE}`],
    [
      "an element's preconditions (ascending: the first element fails)",
      { list: containers, order: 'Ascending', preconditions: { all: [{ key: '{{ element.nope }}', operator: 'Equals', value: 'x' }] }, ...label('b') },
      `failed to mutate elements: failed to evaluate mutate.foreach[0].preconditions: failed to substitute variables in condition key: failed to resolve element.nope at path : ${NOPE}`,
    ],
    [
      "an element's overlay (descending for a strategic merge: the last element fails first)",
      { list: containers, ...label('{{ element.nope }}') },
      `failed to mutate elements: variable substitution failed: failed to resolve element.nope at path /patchStrategicMerge/metadata/labels/a: ${NOPE}`,
    ],
    ["an element's JSON patch", { list: containers, patchesJson6902: replaceMissing }, `failed to mutate elements: failed to patch resource: ${MISSING}`],
    ['a nested list', { list: containers, foreach: [{ list: 'element.nope', ...label('b') }] }, `failed to mutate elements: failed to evaluate list element.nope: ${NOPE}: ${NOPE}`],
    [
      'an element of a nested loop',
      { list: containers, foreach: [{ list: "['x']", patchesJson6902: replaceMissing }] },
      `failed to mutate elements: failed to mutate elements: failed to patch resource: ${MISSING}`,
    ],
  ] as const)('%s', async (_, entry, expected) => {
    expect(await message({ mutate: { foreach: [entry] } } as unknown as JsonObject)).toBe(expected);
  });
});
