/**
 * Issue 9 (items 1, 2, 8) for Kyverno mutate rules: hostile JMESPath, text growth, re-substitution and
 * foreach loops are bounded per review (src/guard), and a tripped bound is answered by the policy's
 * failurePolicy. Through the package exports: buildPolicySet + evaluate, and runKyvernoPolicies where a
 * review's own guard is needed. No timed assertions: each case would take minutes or kill the process
 * on the old code, and ends here in a bounded number of steps.
 */
import { describe, expect, it } from 'vitest';
import { evaluate, type EngineResult } from '../../src/engine/index.js';
import { ReviewGuard } from '../../src/guard/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies, type CompiledKyvernoPolicy } from '../../src/kyverno/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { pod, podRequest } from '../kyverno/helpers/requests.js';

type Obj = Record<string, any>;

const MATCH_PODS = { any: [{ resources: { kinds: ['Pod'] } }] };

function clusterPolicy(name: string, failurePolicy: 'Fail' | 'Ignore', ...rules: Obj[]): Obj {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name, annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: { failurePolicy, rules: rules.map((r, i) => ({ name: `r${i}`, match: MATCH_PODS, ...r })) },
  };
}

/** A rule that writes `value` (a string with variables) into annotation `key`. */
function annotate(key: string, value: string, extra: Obj = {}): Obj {
  return { ...extra, mutate: { patchStrategicMerge: { metadata: { annotations: { [key]: value } } } } };
}

async function review(docs: Obj[], subject: Obj = pod('web', ['app'])): Promise<EngineResult> {
  const set = buildPolicySet([parseDocuments('policies.json', JSON.stringify(docs))]);
  expect(set.problems).toEqual([]);
  return evaluate(set, podRequest(subject));
}

function compiled(doc: Obj): CompiledKyvernoPolicy {
  const result = compileKyvernoPolicy(doc);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.policy;
}

/** `expression | [@, @][] | …`: the list doubles at every step (2^27 elements at the end). */
const doubled27 = (expression: string) => [expression, ...Array.from({ length: 27 }, () => '[@, @][]')].join(' | ');

/** A context variable whose JMESPath doubles the Pod's containers 27 times. */
const exponentialVariable = annotate('count', '{{ length(big) }}', {
  context: [{ name: 'big', variable: { jmesPath: doubled27('request.object.spec.containers') } }],
});

describe('an exponential JMESPath context variable', () => {
  it('failurePolicy Ignore: a size error of the rule, the Pod admitted unchanged and the error reported', async () => {
    const result = await review([clusterPolicy('grow', 'Ignore', exponentialVariable)]);
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    expect(result.patch).toEqual([]);
    const outcome = result.outcomes.find((o) => o.policy === 'ClusterPolicy/grow');
    expect(outcome).toMatchObject({ result: 'error', ignored: true });
    expect(outcome?.detail).toMatch(/over the limit of \d+ per value/);
  });

  it('failurePolicy Fail: the request is denied naming the policy and the size error', async () => {
    const result = await review([clusterPolicy('grow', 'Fail', exponentialVariable)]);
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.status.code).toBe(403);
    expect(result.status.message).toContain('ClusterPolicy/grow');
    expect(result.status.message).toMatch(/rule r0 failed: .*over the limit of \d+ per value/);
  });

  it('a size error fails only its policy: the later policy still runs', async () => {
    const result = await review([
      clusterPolicy('aaa-grow', 'Ignore', exponentialVariable),
      clusterPolicy('zzz-label', 'Fail', annotate('team', 'shop')),
    ]);
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    expect(result.outcomes.map((o) => [o.policy, o.result])).toEqual([
      ['ClusterPolicy/aaa-grow', 'error'],
      ['ClusterPolicy/zzz-label', 'mutated'],
    ]);
    expect((result.object as Obj).metadata.annotations).toEqual({ team: 'shop' });
  });

  it('nested multi-selects (a value sharing its subtrees, 2^27 leaves as text) are refused before anything expands them', async () => {
    const shared = ['request.object.metadata.name', ...Array.from({ length: 27 }, () => '[@, @]')].join(' | ');
    for (const value of ['{{ big }}', 'x {{ big }}', '{{ to_string(big) }}']) {
      const result = await review([
        clusterPolicy('shared', 'Ignore', annotate('big', value, { context: [{ name: 'big', variable: { jmesPath: shared } }] })),
      ]);
      expect(result.allowed).toBe(true);
      if (!result.allowed) return;
      expect(result.patch).toEqual([]);
      expect(result.outcomes[0].detail).toMatch(/over the limit of \d+ per value/);
    }
  });
});

describe('text that grows', () => {
  it('replace_all doubling a string is a size error of its rule', async () => {
    const word = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const expression = Array.from({ length: 30 }).reduce<string>((inner) => `replace_all(${inner}, '${word}', '${word}${word}')`, `'${word}'`);
    const result = await review([clusterPolicy('replace', 'Ignore', annotate('n', `{{ length(${expression}) }}`))]);
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    expect(result.patch).toEqual([]);
    expect(result.outcomes[0]).toMatchObject({ result: 'error', ignored: true });
    expect(result.outcomes[0].detail).toMatch(/replace_all\(\) would be \d+ bytes, over the limit/);
  });

  it('base64_encode over base64_encode is a size error of its rule (Fail: denied)', async () => {
    const subject = pod('web', ['app']);
    subject.metadata = { ...(subject.metadata as Obj), annotations: { seed: 'x'.repeat(100_000) } };
    const expression = Array.from({ length: 20 }).reduce<string>((inner) => `base64_encode(${inner})`, 'request.object.metadata.annotations.seed');
    const result = await review([clusterPolicy('encode', 'Fail', annotate('n', `{{ length(${expression}) }}`))], subject);
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.status.message).toContain('ClusterPolicy/encode');
    expect(result.status.message).toMatch(/base64_encode\(\) would be \d+ bytes, over the limit/);
  });

  it('a variable inserted into many places of one document counts once per place', async () => {
    // 2 MB of annotation text, inserted four times into one patch: 8 MB of substituted text.
    const subject = pod('web', ['app']);
    subject.metadata = { ...(subject.metadata as Obj), annotations: { seed: 'y'.repeat(2_000_000) } };
    const copies = Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, 'x{{ request.object.metadata.annotations.seed }}']));
    const rule = { mutate: { patchStrategicMerge: { metadata: { labels: copies } } } };
    const result = await review([clusterPolicy('copies', 'Ignore', rule)], subject);
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    expect(result.patch).toEqual([]);
    expect(result.outcomes[0].detail).toMatch(/substituted text would be \d+ bytes, over the limit/);
  });
});

describe('documents that share their parts', () => {
  it('patchesJson6902 copying a map into itself 30 times (2^30 leaves as text) is a size error, not a reply too big to write', async () => {
    const ops = [
      { op: 'add', path: '/metadata/annotations', value: { seed: 'x' } },
      ...Array.from({ length: 30 }, (_, i) => ({ op: 'copy', from: '/metadata/annotations', path: `/metadata/annotations/k${i}` })),
    ];
    const result = await review([clusterPolicy('copies', 'Ignore', { mutate: { patchesJson6902: JSON.stringify(ops) } })]);
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    expect(result.patch).toEqual([]);
    expect(result.outcomes[0]).toMatchObject({ result: 'error', ignored: true });
    expect(result.outcomes[0].detail).toMatch(/the patched resource would be \d+ bytes, over the limit/);
  });
});

describe('substitution never re-reads text that came out of a resolved variable', () => {
  it('an annotation holding {{…}} text that repeats itself is copied literally', async () => {
    // a<i> refers to a<i-1> twice: substituting resolved text again would expand 2^20 times.
    const annotations: Record<string, string> = { a0: 'seed' };
    for (let i = 1; i <= 20; i++) {
      annotations[`a${i}`] = `{{ request.object.metadata.annotations.a${i - 1} }}-{{ request.object.metadata.annotations.a${i - 1} }}`;
    }
    annotations.owner = annotations.a20;
    const subject = pod('web', ['app']);
    subject.metadata = { ...(subject.metadata as Obj), annotations };
    const result = await review(
      [clusterPolicy('owner', 'Fail', annotate('owner-copy', 'owner-{{ request.object.metadata.annotations.owner }}'))],
      subject,
    );
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    expect((result.object as Obj).metadata.annotations['owner-copy']).toBe(`owner-${annotations.a20}`);
  });
});

describe('the deadline of a review', () => {
  /** A guard whose clock advances 1 ms at every read: it trips after `reads` reads, deterministically. */
  function steppingGuard(reads: number): ReviewGuard {
    let now = 0;
    return new ReviewGuard({ deadlineMs: reads, maxValueBytes: 6 << 20, now: () => now++ });
  }

  const containers = Array.from({ length: 300 }, (_, i) => `c${i}`);
  const foreachRule = {
    mutate: {
      foreach: [
        {
          list: 'request.object.spec.containers',
          patchStrategicMerge: { spec: { containers: [{ name: '{{ element.name }}', imagePullPolicy: 'Always' }] } },
        },
      ],
    },
  };

  it('a foreach over many elements stops at the deadline: Ignore drops its changes, the rules not run are answered by failurePolicy', async () => {
    const policies = [
      compiled(clusterPolicy('aaa-foreach', 'Ignore', foreachRule)),
      compiled(clusterPolicy('bbb-later', 'Fail', annotate('later', 'x'))),
      compiled(clusterPolicy('ccc-later', 'Ignore', annotate('later', 'y'))),
    ];
    const subject = pod('web', containers);
    const result = await runKyvernoPolicies(policies, { request: podRequest(subject), guard: steppingGuard(40) });
    expect(result.changed).toBe(false);
    expect(result.object).toBe(subject);
    const [foreach, later, ignored] = result.policies;
    expect(foreach).toMatchObject({ policy: 'ClusterPolicy/aaa-foreach', status: 'error', aborted: 'deadline' });
    expect(foreach.rules[0].message).toMatch(/deadline exceeded/);
    // Rules that were not run: answered without running, by their policy's failurePolicy.
    expect(later).toMatchObject({ policy: 'ClusterPolicy/bbb-later', status: 'error', aborted: 'deadline' });
    expect(later.rules[0].message).toMatch(/^not run: deadline exceeded/);
    expect(ignored).toMatchObject({ status: 'error', aborted: 'deadline', failurePolicy: 'Ignore' });
    expect(result.rejection?.message).toMatch(/policy ClusterPolicy\/bbb-later: rule r0 failed: not run: deadline exceeded/);
    expect(result.rejection?.message).not.toContain('aaa-foreach');
  });

  it('failurePolicy Fail on the policy in progress: denied naming the policy and "deadline exceeded"', async () => {
    const policies = [compiled(clusterPolicy('foreach', 'Fail', foreachRule))];
    const result = await runKyvernoPolicies(policies, { request: podRequest(pod('web', containers)), guard: steppingGuard(40) });
    expect(result.rejection?.message).toMatch(/policy ClusterPolicy\/foreach: rule r0 failed: deadline exceeded/);
  });

  it('a cancelled review runs nothing more', async () => {
    const controller = new AbortController();
    controller.abort();
    const guard = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 6 << 20, signal: controller.signal });
    const result = await runKyvernoPolicies([compiled(clusterPolicy('label', 'Ignore', annotate('a', 'b')))], {
      request: podRequest(pod('web', ['app'])),
      guard,
    });
    expect(result.changed).toBe(false);
    expect(result.policies[0]).toMatchObject({ status: 'error', aborted: 'cancelled' });
    expect(result.policies[0].rules[0].message).toMatch(/^not run: the review was cancelled/);
  });

  it('outcomes carry their durations', async () => {
    const result = await runKyvernoPolicies([compiled(clusterPolicy('label', 'Ignore', annotate('a', 'b'), annotate('c', 'd')))], {
      request: podRequest(pod('web', ['app'])),
    });
    const [outcome] = result.policies;
    expect(outcome.status).toBe('applied');
    expect(outcome.aborted).toBeUndefined();
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    expect(outcome.rules.map((r) => typeof r.durationMs)).toEqual(['number', 'number']);
    expect(outcome.durationMs).toBeGreaterThanOrEqual(outcome.rules[0].durationMs);
  });
});
