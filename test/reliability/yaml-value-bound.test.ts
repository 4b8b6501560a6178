/**
 * YAML a review hands to Kyverno's parse_yaml (JMESPath) or yaml.parse (CEL) is read by the `yaml`
 * package, which holds about 0.5 KB per value while it reads: 0.2 MB of review text (a flow list of
 * 100,000 numbers) does not fit in 64 MB of heap, so one review could exhaust a 128 MB Workers isolate or
 * Lambda function. A text of more values than AMENDER_MAX_VALUE_BYTES / 128 (49,152 by default) is refused
 * before it is composed: the rule fails by its policy's failurePolicy, with a message saying why. So is a
 * patchesJson6902 text whose substituted review values make it that large (Kyverno writes variables into
 * the YAML before reading it).
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation } from '../../src/cel/index.js';
import { DEFAULT_MAX_VALUE_BYTES, ReviewGuard } from '../../src/guard/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { pod, podRequest } from '../kyverno/helpers/requests.js';

const flowList = (n: number) => `[${Array(n).fill('1').join(',')}]`;
const guard = (maxValueBytes = DEFAULT_MAX_VALUE_BYTES) => new ReviewGuard({ deadlineMs: 60_000, maxValueBytes });

const podWith = (config: string) => {
  const p = pod('web', ['app']);
  (p.metadata as Record<string, unknown>).annotations = { config };
  return p;
};

const policy = () => {
  const compiled = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'read-config', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      rules: [
        {
          name: 'count',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { values: '{{ length(parse_yaml(request.object.metadata.annotations.config)) }}' } } } },
        },
      ],
    },
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  return compiled.policy;
};

describe('parse_yaml of review text holds at most maxValueBytes / 128 values', () => {
  it('reads 49,152 values, refuses 49,153 naming the bound, and reads more under a larger bound', async () => {
    const within = await runKyvernoPolicies([policy()], { request: podRequest(podWith(flowList(49_151))), guard: guard() });
    expect(((within.object as Record<string, any>).metadata.labels as Record<string, unknown>).values).toBe(49_151);

    const over = await runKyvernoPolicies([policy()], { request: podRequest(podWith(flowList(49_152))), guard: guard() });
    expect(over.changed).toBe(false);
    expect(over.rejection?.message).toMatch(/parse_yaml.*the YAML text holds more than 49152 values, more than a review may read \(AMENDER_MAX_VALUE_BYTES \/ 128\)/);

    const larger = await runKyvernoPolicies([policy()], { request: podRequest(podWith(flowList(49_152))), guard: guard(DEFAULT_MAX_VALUE_BYTES * 2) });
    expect(((larger.object as Record<string, any>).metadata.labels as Record<string, unknown>).values).toBe(49_152);
  });
});

describe('yaml.parse (Kyverno CEL) of review text holds at most maxValueBytes / 128 values', () => {
  const run = (text: string, g: ReviewGuard) => {
    const r = compileExpression('yaml.parse(object.metadata.annotations.config).size()', 'variable', { params: false, dialect: 'kyverno' });
    if (!r.ok) throw new Error(r.message);
    return new Evaluation({ object: podWith(text) as never }, { budget: 10_000_000, guard: g }).evaluate(r.compiled);
  };

  it('is an evaluation error past the bound, not an exhausted heap', () => {
    expect(run(flowList(1_000), guard())).toMatchObject({ ok: true, value: 1_000n });
    const out = run(flowList(100_000), guard());
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.message).toMatch(/the YAML text holds more than 49152 values/);
  });
});

describe('a patchesJson6902 text with review values written into it', () => {
  const jsonPatchPolicy = () => {
    const compiled = compileKyvernoPolicy({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'copy-config', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
      spec: {
        rules: [
          {
            name: 'copy',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            mutate: { patchesJson6902: '- op: add\n  path: /spec/copied\n  value: {{ request.object.metadata.annotations.config }}' },
          },
        ],
      },
    });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    return compiled.policy;
  };

  // Not JSON (that would be read as JSON, outside the YAML reader): a YAML flow list of plain words.
  const words = (n: number) => `[${Array(n).fill('a').join(',')}]`;

  it('is read under the same bound', async () => {
    const small = await runKyvernoPolicies([jsonPatchPolicy()], { request: podRequest(podWith(words(3))), guard: guard() });
    expect(((small.object as Record<string, any>).spec as Record<string, unknown>).copied).toEqual(['a', 'a', 'a']);
    const over = await runKyvernoPolicies([jsonPatchPolicy()], { request: podRequest(podWith(words(60_000))), guard: guard() });
    expect(over.changed).toBe(false);
    expect(over.rejection?.message).toMatch(/rule copy failed: .*the YAML text holds more than 49152 values/);
  });
});
