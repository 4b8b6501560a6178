/**
 * A Kyverno policy nested deeper than a policy document may (1000 levels, the bound Amender's JSON reader
 * holds) is refused by an explicit check, naming the rule, the field and the bound, before any walker of
 * the compiler recurses into it. Before, a 5,000-level overlay given as a document (a library caller's
 * object) was refused as "internal error while compiling: Maximum call stack size exceeded" (or another
 * error, depending on where the stack ran out), and a Pod rule in a JSON policy file at the reader's bound
 * failed the same way in autogen ("JSON nesting deeper than 1000 levels": the CronJob rule moves the
 * overlay four levels down).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { heightUpTo, type JsonObject, type JsonValue } from '../../src/json/index.js';
import { buildPolicySet, parseDocuments, type SourceDocument } from '../../src/policyset/index.js';
import { answerReviewText } from '../../src/server/index.js';
import { fakeIO } from '../cli/fake-io.js';
import { reviewOf } from '../server/helpers.js';

const LIMIT = 1000;

function nested(levels: number, leaf: JsonValue = 'x'): JsonValue {
  let value: JsonValue = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

function policy(name: string, mutate: JsonObject, kinds = ['Pod']): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name },
    spec: { rules: [{ name: 'first', match: { any: [{ resources: { kinds: ['ConfigMap'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } }, { name: `${name}-rule`, match: { any: [{ resources: { kinds } }] }, mutate }] },
  };
}

const OTHER = policy('other', { patchStrategicMerge: { metadata: { labels: { other: 'yes' } } } });

const doc = (value: JsonObject, index: number): SourceDocument => ({ source: 'given', index, value });

const POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

type Reply = { response: { allowed: boolean; patch?: string; status?: { message?: string } } };

async function patchOf(set: ReturnType<typeof buildPolicySet>, object: Record<string, unknown>): Promise<unknown[]> {
  const reply = (await answerReviewText(JSON.stringify(reviewOf(object)), set, LIMIT)).body as unknown as Reply;
  expect(reply.response.allowed, reply.response.status?.message).toBe(true);
  return JSON.parse(Buffer.from(reply.response.patch ?? 'W10=', 'base64').toString('utf8')) as unknown[];
}

describe('a policy nested deeper than a policy document may', () => {
  const cases: [string, JsonObject, string][] = [
    ['a patchStrategicMerge overlay', { patchStrategicMerge: { spec: nested(5000) } }, 'spec.rules[1].mutate.patchStrategicMerge'],
    ['a foreach overlay', { foreach: [{ list: 'request.object.spec.containers', patchStrategicMerge: { spec: nested(5000) } }] }, 'spec.rules[1].mutate.foreach[0].patchStrategicMerge'],
    ['a nested foreach overlay', { foreach: [{ list: 'request.object.spec.containers', foreach: [{ list: 'element.env', patchStrategicMerge: nested(5000) as JsonObject }] }] }, 'spec.rules[1].mutate.foreach[0].foreach[0].patchStrategicMerge'],
    ['a condition anchor pattern', { patchStrategicMerge: { spec: { '(containers)': [nested(5000)], x: 1 } } }, 'spec.rules[1].mutate.patchStrategicMerge'],
  ];
  for (const [what, mutate, path] of cases) {
    it(`refuses ${what} 5,000 levels deep by name; the other policies load and run`, async () => {
      const parsed = [{ source: 'given', documents: [doc(OTHER, 0), doc(policy('deep', mutate), 1)], problems: [] }];
      const set = buildPolicySet(parsed);
      expect(set.problems).toEqual([
        {
          source: 'given',
          index: 1,
          kind: 'ClusterPolicy',
          name: 'deep',
          path,
          message: `rule "deep-rule": nests deeper than ${LIMIT} levels, the most a policy document may (counted from the document's top)`,
          effect: 'ignored',
        },
      ]);
      expect(set.counts.kyvernoPolicies).toBe(1);
      expect(await patchOf(set, POD)).toEqual([{ op: 'add', path: '/metadata/labels', value: { other: 'yes' } }]);
    });
  }

  it('names the field when the depth is outside the rules', () => {
    const deep = { ...policy('deep', { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } }), status: nested(5000) };
    const set = buildPolicySet([{ source: 'given', documents: [doc(deep, 0)], problems: [] }]);
    expect(set.problems.map((p) => [p.path, p.message])).toEqual([['status', `nests deeper than ${LIMIT} levels, the most a policy document may (counted from the document's top)`]]);
  });

  it('refuses a policy one level past the bound, and every time the same way', () => {
    const at = (levels: number) => policy('deep', { patchStrategicMerge: { spec: nested(levels) } });
    const over = at(LIMIT);
    expect(heightUpTo(over, 2 * LIMIT)).toBeGreaterThan(LIMIT);
    for (let i = 0; i < 3; i++) {
      const set = buildPolicySet([{ source: 'given', documents: [doc(over, 0)], problems: [] }]);
      expect(set.problems.map((p) => p.path)).toEqual(['spec.rules[1].mutate.patchStrategicMerge']);
    }
  });
});

describe('a Pod policy at the depth a policy file may have', () => {
  /** A JSON policy file as deep as the reader takes (1000 levels), whose Pod rule autogen moves down. */
  function fileAtTheBound(): string {
    // The document, spec, rules, the rule, mutate, the overlay and its spec: 7 levels above `deep`.
    const deep = policy('deep', { patchStrategicMerge: { spec: { deep: nested(LIMIT - 7) } } });
    expect(heightUpTo(deep, 2 * LIMIT)).toBe(LIMIT);
    return JSON.stringify(deep);
  }

  it('loads through the policy set with its autogen rules (the CronJob one nests past the bound) and runs them', async () => {
    const parsed = parseDocuments('deep.json', fileAtTheBound());
    expect(parsed.problems).toEqual([]);
    const set = buildPolicySet([parsed, { source: 'other', documents: [doc(OTHER, 0)], problems: [] }]);
    expect(set.problems).toEqual([]);
    expect(set.counts.kyvernoPolicies).toBe(2);
    // A Pod takes the overlay: its review nests 997 levels.
    const patch = await patchOf(set, POD);
    expect(patch.map((op) => (op as { path: string }).path)).toEqual(['/metadata/labels', '/spec/deep']);
    // A CronJob's autogen rule takes it four levels further down (1001 levels with the review's own).
    const cronJob = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c', namespace: 'default' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } } } } };
    const cronPatch = await patchOf(set, cronJob);
    expect(cronPatch.map((op) => (op as { path: string }).path)).toEqual(['/spec/jobTemplate/spec/template/spec/deep', '/spec/jobTemplate/spec/template/metadata']);
  });

  it('loads through the CLI (amender validate)', async () => {
    const io = fakeIO({ 'p/deep.json': fileAtTheBound() });
    expect(await runCli(['validate', 'p'], io), io.stderr).toBe(0);
    expect(io.stdout).toMatch(/kyvernoPolicies: 1\b/);
  });

  it('a 5,000-level policy given to the CLI is refused by the reader with its bound', async () => {
    // Written as text: JSON.stringify of 5,000 levels may overflow the test's own stack.
    const text = JSON.stringify(policy('deep', { patchStrategicMerge: { spec: 'DEEP' } })).replace('"DEEP"', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`);
    const io = fakeIO({ 'p/deep.json': text });
    expect(await runCli(['validate', 'p'], io)).not.toBe(0);
    expect(io.stdout + io.stderr).toContain('JSON nesting deeper than 1000 levels');
  });
});
