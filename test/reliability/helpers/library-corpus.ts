/**
 * Real policies and resources as fuzz material: the kyverno/policies library copies (test/kyverno-library,
 * test/kyverno-library-mpol) with their test resources, the Kyverno fixtures, and AdmissionReviews of
 * objects as the API server would send them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../../node/built.js';

export type Obj = Record<string, any>;

export const LIBRARIES = ['test/kyverno-library', 'test/kyverno-library-mpol'].map((dir) => join(ROOT, dir));

/** YAML files under `dir`, sorted; `inTestFolder` for those below a dot folder (`.kyverno-test`, `.chainsaw-test`). */
export function yamlFiles(dir: string, inTestFolder = false): { path: string; inTestFolder: boolean }[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return yamlFiles(path, inTestFolder || entry.name.startsWith('.'));
      return entry.name.endsWith('.yaml') ? [{ path, inTestFolder }] : [];
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** The objects (mappings) of a YAML file's documents. */
export function yamlObjects(path: string): Obj[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as unknown)
    .filter((d): d is Obj => d !== null && typeof d === 'object' && !Array.isArray(d));
}

/** The kinds of policy documents (and MAP bindings) the sweeps break. */
export const POLICY_KINDS: ReadonlySet<string> = new Set(['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding', 'ClusterPolicy', 'Policy', 'MutatingPolicy', 'NamespacedMutatingPolicy']);

/**
 * An intact Kyverno policy that labels every Pod `fuzz-intact: kept`: a sweep loads it beside a broken one,
 * which must not take it down. (Not `yes`: unquoted in YAML that is a boolean to Kyverno, and a label is a string.)
 */
export const INTACT_LABELER = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'zz-intact-label' },
  spec: { rules: [{ name: 'label', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels: { 'fuzz-intact': 'kept' } } } } }] },
};

/** The bundled examples (policies/, not their tests) and the bench's 50 policies: one file each. */
export function examplePolicyFiles(): string[] {
  return [...yamlFiles(join(ROOT, 'policies')).filter((f) => !f.path.includes('/tests/')), ...yamlFiles(join(ROOT, 'bench/fixtures/policies-50'))].map((f) => f.path);
}

export const KYVERNO_FIXTURES = join(ROOT, 'test/fixtures/kyverno');

/** The policy files of the Kyverno fixtures (each folder's policy.yaml or policies.yaml). */
export function fixturePolicyFiles(): string[] {
  return readdirSync(KYVERNO_FIXTURES).flatMap((dir) =>
    readdirSync(join(KYVERNO_FIXTURES, dir))
      .filter((f) => /^polic(y|ies)\.yaml$/.test(f))
      .map((f) => join(KYVERNO_FIXTURES, dir, f)),
  );
}

/** The libraries' policy files (each folder's own YAML, not its tests). */
export function libraryPolicyFiles(): string[] {
  return LIBRARIES.flatMap((dir) => yamlFiles(dir).filter((f) => !f.inTestFolder).map((f) => f.path));
}

/** The libraries' test resources (`resource*.yaml` of their test folders) that have a kind. */
export function libraryResources(): Obj[] {
  const files = LIBRARIES.flatMap((dir) => yamlFiles(dir)).filter((f) => f.inTestFolder && /\/resource[^/]*\.yaml$/.test(f.path));
  return files.flatMap((f) => yamlObjects(f.path)).filter((o) => typeof o.kind === 'string' && typeof o.apiVersion === 'string');
}

/** An AdmissionReview of `object` as the API server sends one. */
export function reviewOf(object: Obj, operation = 'CREATE', oldObject: Obj | null = null): Obj {
  const [group, version] = String(object.apiVersion ?? 'v1').includes('/') ? String(object.apiVersion).split('/') : ['', String(object.apiVersion ?? 'v1')];
  const kind = String(object.kind ?? 'Pod');
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `fuzz-${kind.toLowerCase()}-${operation.toLowerCase()}`,
      kind: { group, version, kind },
      resource: { group, version, resource: `${kind.toLowerCase()}s` },
      name: object.metadata?.name,
      namespace: object.metadata?.namespace ?? 'default',
      operation,
      userInfo: { username: 'alice', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } },
      object: operation === 'DELETE' ? null : object,
      oldObject,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: `${operation[0]}${operation.slice(1).toLowerCase()}Options` },
    },
  };
}
