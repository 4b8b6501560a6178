/**
 * Which context entries a query names, for deferred loading: Kyverno's pattern
 * `(?:\A|\z|\s|[^.0-9A-Za-z])NAME\b` (pkg/engine/context/deferred.go), with the name read as an RE2 pattern.
 * The oracle below is that pattern itself, compiled by re2js (Go's syntax); the engine looks plain names
 * up instead of testing every entry, and compiles other names with re2js: a JavaScript RegExp built from
 * a name such as `(a|aa)+$` backtracked without end on a long query, and no deadline could stop it.
 */
import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function run(rule: JsonObject) {
  const result = await runKyvernoPolicies([compiled(clusterPolicy('names', [{ name: 'r', ...rule }], { background: false }))], { request: podRequest(pod('p', ['a'])) });
  return result.policies[0].rules[0];
}

/** An entry whose load fails: the rule fails exactly when a query names it. */
const failing = (name: string) => ({ name, variable: { jmesPath: 'request.object.metadata.nothere' } });
const kyvernoNames = (name: string, query: string) => RE2JS.compile(`(?:\\A|\\z|\\s|[^.0-9A-Za-z])${name}\\b`).matcher(query).find();

describe('the entries a query names', () => {
  const texts = ['bad', 'bad.x', 'x.bad', 'a_bad', 'abad', 'bad1', 'bad_', '_bad', '[bad]', 'x bad', 'x.a_bad', 'x.bad_bad', 'BAD', 'ba d', 'bad-x'];
  for (const text of texts) {
    it(`'${text}'`, async () => {
      const query = `join('', [request.operation, '${text}'])`;
      const outcome = await run({ context: [failing('bad')], mutate: { patchStrategicMerge: { metadata: { annotations: { x: `{{ ${query} }}` } } } } });
      expect(outcome.status, outcome.message).toBe(kyvernoNames('bad', query) ? 'error' : 'applied');
    });
  }

  it('a name that is a pattern is read as RE2 reads it, in linear time', async () => {
    const query = `request.object.metadata.name || '${'a'.repeat(60)}b'`;
    const outcome = await run({ context: [failing('(a|aa)+$'), failing('p.d')], mutate: { patchStrategicMerge: { metadata: { annotations: { x: `{{ ${query} }}` } } } } });
    // Neither pattern finds the query (the first needs the text to end in an a; `p.d` needs a letter
    // before it, and `.metadata` has a dot): nothing loads, the rule applies.
    expect(kyvernoNames('(a|aa)+$', query) || kyvernoNames('p.d', query)).toBe(false);
    expect(outcome.status, outcome.message).toBe('applied');
  });

  it('a name that is a pattern loads when its pattern finds the query', async () => {
    const outcome = await run({ context: [failing('ba.')], mutate: { patchStrategicMerge: { metadata: { annotations: { x: "{{ join('', [request.operation, ' bad']) }}" } } } } });
    expect(outcome.status).toBe('error');
  });

  it('a name that is no RE2 pattern fails the rule, as Kyverno cannot register its loader', async () => {
    const outcome = await run({ context: [{ name: 'a(', variable: { value: 1 } }], mutate: { patchStrategicMerge: { metadata: { annotations: { x: 'y' } } } } });
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain('context entry "a("');
  });
});
