/**
 * kustomize kyaml merge2's own table tests (test/schema/kyaml-merge2/cases.yaml, README.md there), run the
 * way Kyverno reaches merge2: as a ClusterPolicy's patchStrategicMerge through the engine's public API,
 * or, for the cases with InferAssociativeLists on (an option Kyverno leaves off), through the
 * strategic-merge function the engine calls, with that option.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { strategicMerge } from '../../src/schema/index.js';

interface Case {
  file: string;
  name: string;
  options: { listIncreaseDirection?: 'append' | 'prepend'; infer?: boolean };
  source: string;
  dest: string;
  expected: string;
  /** engine: through a ClusterPolicy; merge: strategicMerge with the case's options; no: not applicable (see why). */
  run: 'engine' | 'merge' | 'no';
  why?: string;
  /** The Kyverno rule's error where kyaml itself gives no document. */
  kyvernoError?: string;
  /** What a policy with this patch gives, where Kyverno's pre-processing changes the patch kyaml gets. */
  kyvernoExpected?: string;
}

const data = parse(readFileSync(join(import.meta.dirname, 'kyaml-merge2', 'cases.yaml'), 'utf8')) as { cases: Case[] };

/** A YAML text as JSON, the way Kyverno hands objects to kyaml (an empty document is an empty object). */
const json = (text: string): JsonObject => (parse(text) ?? {}) as JsonObject;

/**
 * What the upstream comparison (kyaml filters.FormatInput on both sides) leaves of order: map keys are
 * sorted, and so are the containers of the workload kinds on its whitelist (kyaml/yaml/order.go).
 */
const SORTED_KINDS = new Set(['CronJob', 'DaemonSet', 'Deployment', 'Job', 'ReplicaSet', 'StatefulSet']);
const SORTED_APIS = new Set(['apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'batch/v1', 'batch/v1beta1', 'extensions/v1beta1', 'v1']);

function asCompared(obj: JsonValue): JsonValue {
  if (!isJsonObject(obj) || !SORTED_KINDS.has(String(obj.kind)) || !SORTED_APIS.has(String(obj.apiVersion))) return obj;
  const podSpec = [getOwn(obj, 'spec'), 'template', 'spec'].reduce((at: JsonValue | undefined, key) => (isJsonObject(at as JsonValue) ? getOwn(at as JsonObject, key as string) : at));
  const containers = isJsonObject(podSpec as JsonValue) ? getOwn(podSpec as JsonObject, 'containers') : undefined;
  if (!Array.isArray(containers)) return obj;
  const copy = structuredClone(obj) as any;
  copy.spec.template.spec.containers = [...containers].sort((a: any, b: any) => String(a?.name).localeCompare(String(b?.name)));
  return copy;
}

function request(object: JsonObject): AdmissionRequest {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : 'v1';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const kind = String(object.kind ?? '');
  return {
    uid: 'kyaml-merge2',
    kind: { group, version, kind },
    resource: { group, version, resource: `${kind.toLowerCase()}s` },
    name: '',
    namespace: 'default',
    operation: 'CREATE',
    userInfo: { username: 'alice' },
    object,
    oldObject: null,
  };
}

/** The patched object, or the rule's error. */
async function throughEngine(c: Case): Promise<{ object?: JsonValue; error?: string }> {
  const resource = json(c.dest);
  const compiled = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'kyaml-merge2' },
    spec: {
      rules: [{ name: 'merge', match: { any: [{ resources: { kinds: [String(resource.kind)] } }] }, mutate: { patchStrategicMerge: json(c.source) } }],
    },
  });
  if (!compiled.ok) throw new Error(`the policy does not compile: ${JSON.stringify(compiled.problems)}`);
  const result = await runKyvernoPolicies([compiled.policy], { request: request(resource) });
  const rules = result.policies.flatMap((p) => p.rules);
  expect(rules.length, 'the rule must match').toBe(1);
  if (rules[0].status === 'error') return { error: rules[0].message ?? '' };
  return { object: result.object };
}

function throughMerge(c: Case): { object?: JsonValue; error?: string } {
  const r = strategicMerge(json(c.dest), json(c.source), { inferListMergeKey: c.options.infer ?? false });
  return r.ok ? { object: r.value } : { error: r.error.message };
}

describe('kyaml merge2 table tests (kustomize kyaml/v0.21.1)', () => {
  const applicable = data.cases.filter((c) => c.run !== 'no');
  it('carries every case, and says why one does not apply', () => {
    expect(data.cases.length).toBe(82);
    for (const c of data.cases.filter((x) => x.run === 'no')) expect(c.why, `${c.file} ${c.name}`).toBeTruthy();
    // Kyverno merges with prepend; an append case runs only with the reason it cannot tell the two apart.
    for (const c of applicable) if (c.options.listIncreaseDirection === 'append') expect(c.why, `${c.file} ${c.name}`).toBeTruthy();
  });

  for (const c of applicable) {
    it(`${c.file}: ${c.name}`, async () => {
      const out = c.run === 'engine' ? await throughEngine(c) : throughMerge(c);
      if (c.kyvernoError !== undefined) {
        expect(out.error, 'Kyverno fails the rule').toContain(c.kyvernoError);
        return;
      }
      expect(out.error).toBeUndefined();
      expect(asCompared(out.object!)).toEqual(asCompared(json(c.expected)));
      if (c.kyvernoExpected !== undefined) {
        const kyverno = await throughEngine(c);
        expect(kyverno.error).toBeUndefined();
        expect(asCompared(kyverno.object!)).toEqual(asCompared(json(c.kyvernoExpected)));
      }
    });
  }
});
