/**
 * Builds an immutable, compiled PolicySet from documents. Every problem is reported with its document,
 * field path and message; a broken document is left out (or kept, where Kubernetes keeps it active) and
 * never takes the others down. A policy whose expressions do not compile is refused, as the API server
 * refuses to create one, unless `compileErrors: 'keep'` asks for the semantics of a policy it already stores.
 */
import { getOwn, isJsonObject, type JsonObject } from '../json/index.js';
import { compilePolicy, type BoundPolicy, type PolicyProgram, type FieldError, loadBinding, loadPolicy, POLICY_API_VERSIONS, type MutatingAdmissionPolicy, type MutatingAdmissionPolicyBinding } from '../map/index.js';
import { crdKind, ObjectStore } from './objects.js';
import type { ParsedSource, Problem, SourceDocument } from './types.js';
import { builtinKinds, SchemaRegistry } from '../schema/index.js';
import {
  compileKyvernoPolicy,
  isKyvernoPolicyDocument,
  kindSelectorKnown,
  sortKyvernoPolicies,
  type AdmissionFinding,
  type CompileResult,
  type CompiledKyvernoPolicy,
  type KnownKind,
} from '../kyverno/index.js';
import { foreignKyvernoKind } from './kyverno-kinds.js';
import { admissionKindProblem } from './admission-kinds.js';
import { storedBuiltinProblems } from './stored-builtin.js';
import { isMutatingPolicyDocument, loadMutatingPolicy, type LoadedMutatingPolicy } from '../mpol/index.js';

export interface PolicySetCounts {
  mutatingAdmissionPolicies: number;
  mutatingAdmissionPolicyBindings: number;
  kyvernoPolicies: number;
  /** Kyverno MutatingPolicies and NamespacedMutatingPolicies that run at admission (autogen variants not counted). */
  kyvernoMutatingPolicies: number;
  params: number;
  namespaces: number;
  customResourceDefinitions: number;
  problems: number;
}

export interface PolicySet {
  /**
   * MutatingAdmissionPolicies sorted by name, each with its bindings sorted by name (policies without
   * bindings included); then Kyverno MutatingPolicies (by name) and NamespacedMutatingPolicies (by
   * namespace/name), each followed by its autogen variants, marked by `kyverno` and bound to one implicit
   * binding without params.
   */
  readonly mutatingPolicies: readonly BoundPolicy[];
  /** Param objects of any kind, Namespaces, and kinds declared by CRDs. */
  readonly objects: ObjectStore;
  /** Built-in schemas plus the CRDs of the set. */
  readonly schemas: SchemaRegistry;
  /** Kyverno ClusterPolicies by name, then Policies by namespace/name (the order they run in). */
  readonly kyvernoPolicies: readonly CompiledKyvernoPolicy[];
  readonly problems: readonly Problem[];
  readonly counts: Readonly<PolicySetCounts>;
}

export interface BuildOptions {
  /** Schema registry to extend with the set's CRDs (default: the shared built-in registry). */
  schemas?: SchemaRegistry;
  /**
   * What becomes of a MutatingAdmissionPolicy whose expressions do not compile.
   * `refuse` (default; the server and the CLI): it is left out of the set (problems with effect
   * `ignored`), as kube-apiserver refuses to create or update such a policy; a reloading source then
   * keeps the document's last good version in force.
   * `keep`: it stays in the set and each expression's error surfaces when a request reaches it, under
   * the policy's failurePolicy (problems with effect `kept`). This is what kube-apiserver does with a
   * policy it already stores whose expressions no longer compile (written under another version's CEL
   * environment); the Kubernetes conformance vectors check that runtime behaviour and build with it.
   */
  compileErrors?: 'refuse' | 'keep';
  /**
   * Kyverno context entries only a cluster can fill (`apiCall`, `imageRegistry`, `globalReference`, a
   * `configMap` the sources do not hold). Default false: a policy with one is refused (it would fail
   * every request its rule matches). True when context values stand in for them, as in Kyverno's CLI
   * (`amender test`, `amender apply --values-file/--set`): the policy is kept, problems with effect
   * `kept`, and an entry no value covers fails its rule at evaluation.
   */
  contextValues?: boolean;
  /**
   * Kyverno `{{ }}` variables that Kyverno's policy validation does not know (neither a variable it
   * defines nor one of the rule's context entries). `refuse` (default; the server, `validate`,
   * `review`): the policy is refused, as Kyverno refuses to create it. `keep` (`amender apply` and
   * `test`, where values may define any variable): kept, the problem reported, and a variable no value
   * defines fails its rule at evaluation. Kyverno's CLI skips such a policy.
   */
  unknownVariables?: 'refuse' | 'keep';
  /**
   * When MutatingAdmissionPolicies compile. `load`: all of them while the set is built, so that one that
   * does not compile is refused (compileErrors). `first-use`: each when a request first reaches it (a cold
   * start then compiles only what its first reviews need); for documents that cannot be refused, because
   * they were validated as this very set before (ParsedSource.validatedAtBuild). Should one still fail to
   * compile, its errors surface when a request reaches it, under its failurePolicy (as compileErrors 'keep').
   * Default: `first-use` when every input is a ParsedSource validated at build, else `load`.
   */
  compile?: 'load' | 'first-use';
  /**
   * A built-in object the API server would refuse to create (stored-builtin.ts storedBuiltinProblems).
   * `refuse` (default): left out, a problem per error (effect `ignored`): no cluster can hold it; and an
   * object of a namespaced kind written without a namespace is in `default`, where kubectl puts it. `keep`
   * (`amender test`, as Kyverno's CLI, which reads a param file as written): kept as written, nothing
   * reported.
   */
  unstorableObjects?: 'refuse' | 'keep';
}

type Input = ParsedSource | SourceDocument;

let builtinKindCache: KnownKind[] | undefined;

/** The built-in kinds (`group/version/Kind` of the schema data), parsed once. */
function builtinKindList(): KnownKind[] {
  if (!builtinKindCache) {
    builtinKindCache = builtinKinds().map((text) => {
      const [group, version, kind] = text.split('/');
      return { group, version, kind };
    });
  }
  return builtinKindCache;
}

function where(doc: SourceDocument): string {
  return doc.item === undefined ? `${doc.source}#${doc.index}` : `${doc.source}#${doc.index}.items[${doc.item}]`;
}

function docKind(v: JsonObject): string | undefined {
  const k = getOwn(v, 'kind');
  return typeof k === 'string' ? k : undefined;
}

function docName(v: JsonObject): string | undefined {
  const meta = getOwn(v, 'metadata');
  const name = isJsonObject(meta) ? getOwn(meta, 'name') : undefined;
  return typeof name === 'string' ? name : undefined;
}

class Builder {
  readonly problems: Problem[] = [];
  readonly objects = new ObjectStore();
  private readonly policies = new Map<string, { value: MutatingAdmissionPolicy; doc: SourceDocument }>();
  private readonly bindings = new Map<string, { value: MutatingAdmissionPolicyBinding; doc: SourceDocument }>();
  private crdCount = 0;
  private readonly kyverno = new Map<string, { policy: CompiledKyvernoPolicy; doc: SourceDocument }>();
  /** Compiled Kyverno policies waiting for the checks that need every document (kinds, ConfigMaps). */
  private readonly kyvernoPending: { compiled: Extract<CompileResult, { ok: true }>; doc: SourceDocument }[] = [];
  private readonly crdKinds: KnownKind[] = [];
  private readonly kyvernoMutating = new Map<string, { loaded: LoadedMutatingPolicy; doc: SourceDocument }>();
  schemas: SchemaRegistry;
  private readonly keepUncompiled: boolean;
  private readonly contextValues: boolean;
  private readonly keepUnknownVariables: boolean;
  private readonly compileOnFirstUse: boolean;
  private readonly keepUnstorable: boolean;

  constructor(options: BuildOptions, validatedAtBuild: boolean) {
    this.schemas = options.schemas ?? SchemaRegistry.builtin();
    if (options.compileErrors !== undefined && options.compileErrors !== 'refuse' && options.compileErrors !== 'keep') {
      throw new TypeError(`BuildOptions.compileErrors: expected 'refuse' or 'keep', got ${JSON.stringify(options.compileErrors)}`);
    }
    this.keepUncompiled = options.compileErrors === 'keep';
    this.contextValues = options.contextValues === true;
    if (options.unknownVariables !== undefined && options.unknownVariables !== 'refuse' && options.unknownVariables !== 'keep') {
      throw new TypeError(`BuildOptions.unknownVariables: expected 'refuse' or 'keep', got ${JSON.stringify(options.unknownVariables)}`);
    }
    this.keepUnknownVariables = options.unknownVariables === 'keep';
    if (options.compile !== undefined && options.compile !== 'load' && options.compile !== 'first-use') {
      throw new TypeError(`BuildOptions.compile: expected 'load' or 'first-use', got ${JSON.stringify(options.compile)}`);
    }
    this.compileOnFirstUse = (options.compile ?? (validatedAtBuild ? 'first-use' : 'load')) === 'first-use';
    if (options.unstorableObjects !== undefined && options.unstorableObjects !== 'refuse' && options.unstorableObjects !== 'keep') {
      throw new TypeError(`BuildOptions.unstorableObjects: expected 'refuse' or 'keep', got ${JSON.stringify(options.unstorableObjects)}`);
    }
    this.keepUnstorable = options.unstorableObjects === 'keep';
  }

  report(doc: SourceDocument, errors: readonly FieldError[], effect: Problem['effect']): void {
    const kind = docKind(doc.value);
    const name = docName(doc.value);
    for (const e of errors) {
      this.problems.push({
        source: doc.source,
        index: doc.index,
        ...(doc.item !== undefined ? { item: doc.item } : {}),
        ...(kind !== undefined ? { kind } : {}),
        ...(name !== undefined ? { name } : {}),
        path: e.path,
        message: e.message,
        effect,
      });
    }
  }

  addCrd(doc: SourceDocument): void {
    const declared = crdKind(doc.value);
    if (!declared) {
      this.report(doc, [{ path: 'spec', message: 'a CustomResourceDefinition needs spec.group and spec.names.kind' }], 'ignored');
      return;
    }
    const { registry, errors } = this.schemas.withCrds([doc.value]);
    if (errors.length > 0) {
      this.report(doc, errors.map((e) => ({ path: 'spec.versions', message: e.message })), 'ignored');
      return;
    }
    this.schemas = registry;
    this.objects.declareKind(declared);
    this.crdKinds.push({ group: declared.group, kind: declared.kind });
    this.crdCount++;
  }

  addPolicy(doc: SourceDocument): void {
    const loaded = loadPolicy(doc.value);
    this.report(doc, loaded.errors, 'ignored');
    if (loaded.usable) this.register(this.policies, 'MutatingAdmissionPolicy', loaded.value, doc);
  }

  /** Keeps the first document of a name; a later one is reported as a duplicate and left out. */
  private register<T extends { name: string }>(map: Map<string, { value: T; doc: SourceDocument }>, kind: string, value: T, doc: SourceDocument): void {
    const prior = map.get(value.name);
    if (prior) {
      this.report(doc, [{ path: 'metadata.name', message: `Duplicate value: a ${kind} named "${value.name}" is already defined in ${where(prior.doc)}` }], 'ignored');
      return;
    }
    map.set(value.name, { value, doc });
  }

  addBinding(doc: SourceDocument, apiVersion: string): void {
    const loaded = loadBinding(doc.value, apiVersion);
    this.report(doc, loaded.errors, 'ignored');
    this.report(doc, loaded.warnings, 'kept');
    if (loaded.usable) this.register(this.bindings, 'MutatingAdmissionPolicyBinding', loaded.value, doc);
  }

  addKyverno(doc: SourceDocument): void {
    const compiled = compileKyvernoPolicy(doc.value);
    this.report(doc, compiled.warnings, 'kept');
    if (!compiled.ok) {
      this.report(doc, compiled.problems, 'ignored');
      return;
    }
    this.kyvernoPending.push({ compiled, doc });
  }

  /** A document Amender does not read, reported (and so never a param, silently). */
  leaveOut(doc: SourceDocument, problem: FieldError): void {
    this.report(doc, [problem], 'ignored');
  }

  /**
   * What a Kyverno finding does to its policy in this set (README "What cannot run off-cluster"):
   * refuse it, or keep it with the problem reported.
   */
  private refuses(finding: AdmissionFinding): boolean {
    switch (finding.kind) {
      case 'expression':
        return !this.keepUncompiled;
      case 'cluster':
        return !this.contextValues;
      case 'variable':
        return !this.keepUnknownVariables;
      case 'required':
        return true;
      case 'not-run':
        return false;
    }
  }

  /** Runs the checks that need the whole set, then registers the Kyverno policies (in document order). */
  *finishKyverno(): Generator<void, void> {
    const known: KnownKind[] = [...builtinKindList(), ...this.crdKinds];
    for (const { compiled, doc } of this.kyvernoPending) {
      yield;
      const { policy, references } = compiled;
      const findings: AdmissionFinding[] = [...compiled.findings];
      for (const cm of references.configMaps) {
        const namespace = cm.namespace || policy.namespace || 'default';
        if (!this.objects.get('', 'ConfigMap', namespace, cm.name)) {
          findings.push({
            path: cm.path,
            message: `ConfigMap ${namespace}/${cm.name} is not among the policy sources (a webhook cannot read the cluster's): add it to the sources, or every request the rule matches fails`,
            kind: 'cluster',
          });
        }
      }
      const unknownKinds = references.kinds
        .filter((k) => !kindSelectorKnown(k.selector, known))
        .map((k) => ({
          path: k.path,
          message: `kind "${k.text}" matches no built-in kind and no CustomResourceDefinition of the policy set: a custom kind needs its CRD in the sources to be known; a typo matches nothing`,
        }));
      const refused = findings.some((f) => this.refuses(f));
      if (refused) {
        this.report(doc, [...findings, ...unknownKinds], 'ignored');
        continue;
      }
      this.report(doc, [...findings, ...unknownKinds], 'kept');
      const prior = this.kyverno.get(policy.id);
      if (prior) {
        this.report(doc, [{ path: 'metadata.name', message: `Duplicate value: ${policy.id} is already defined in ${where(prior.doc)}` }], 'ignored');
        continue;
      }
      this.kyverno.set(policy.id, { policy, doc });
    }
    this.kyvernoPending.length = 0;
  }

  addMutatingPolicy(doc: SourceDocument): void {
    const loaded = loadMutatingPolicy(doc.value);
    this.report(doc, loaded.warnings, 'kept');
    this.report(doc, loaded.errors, 'ignored');
    if (!loaded.usable || !loaded.admission) return;
    const key = `${loaded.kind === 'NamespacedMutatingPolicy' ? 'N' : 'C'}/${loaded.id}`;
    const prior = this.kyvernoMutating.get(key);
    if (prior) {
      this.report(doc, [{ path: 'metadata.name', message: `Duplicate value: a ${loaded.kind} named "${loaded.id}" is already defined in ${where(prior.doc)}` }], 'ignored');
      return;
    }
    this.kyvernoMutating.set(key, { loaded, doc });
  }

  /** Compiled Kyverno MutatingPolicies (cluster ones by name, then namespaced by namespace/name), each with its autogen variants. */
  *kyvernoMutatingPolicies(): Generator<void, BoundPolicy[]> {
    const out: BoundPolicy[] = [];
    for (const key of [...this.kyvernoMutating.keys()].sort()) {
      yield;
      const { loaded, doc } = this.kyvernoMutating.get(key)!;
      const compiled = loaded.policies.map((p) => ({ ...p, compiled: compilePolicy(p.policy, { schemas: this.schemas }, { dialect: 'kyverno', auditAnnotations: loaded.auditAnnotations, serverSideApply: loaded.serverSideApply }) }));
      // Errors of autogen variants repeat the policy's own (same expressions, rewritten): report the policy's.
      const errors = compiled[0].compiled.errors.length > 0 ? compiled[0].compiled.errors : compiled.flatMap((c) => c.compiled.errors.map((e) => ({ ...e, message: `${e.message} (in the variant autogen made for ${c.autogen === 'cronjobs' ? 'CronJobs' : 'pod controllers'})` })));
      if (errors.length > 0 && !this.keepUncompiled) {
        this.report(doc, errors, 'ignored');
        continue;
      }
      this.report(doc, errors, 'kept');
      for (const c of compiled) {
        const binding: MutatingAdmissionPolicyBinding = { name: '', policyName: c.policy.name };
        const kyverno = {
          kind: loaded.kind,
          name: loaded.name,
          ...(loaded.namespace !== undefined ? { namespace: loaded.namespace } : {}),
          ...(c.autogen !== undefined ? { autogen: c.autogen } : {}),
        };
        out.push(Object.freeze({ policy: c.policy, kyverno: Object.freeze(kyverno), bindings: Object.freeze([binding]), program: c.compiled.program }));
      }
    }
    return out;
  }

  get kyvernoMutatingCount(): number {
    return this.kyvernoMutating.size;
  }

  kyvernoPolicies(): CompiledKyvernoPolicy[] {
    return sortKyvernoPolicies([...this.kyverno.values()].map((k) => k.policy));
  }

  addObject(doc: SourceDocument): void {
    if (!docName(doc.value)) {
      this.report(doc, [{ path: 'metadata.name', message: 'Required value' }], 'ignored');
      return;
    }
    // An object the API server would refuse to create cannot be there for a policy to read.
    const refused = this.keepUnstorable ? [] : storedBuiltinProblems(doc.value, this.schemas);
    if (refused.length > 0) return this.report(doc, refused, 'ignored');
    if (!this.objects.add(doc.value, this.schemas, this.keepUnstorable)) {
      this.report(doc, [{ path: 'metadata.name', message: 'Duplicate value: an object of this kind, namespace and name is already defined' }], 'ignored');
    }
  }

  *boundPolicies(): Generator<void, BoundPolicy[]> {
    const byPolicy = new Map<string, MutatingAdmissionPolicyBinding[]>();
    for (const { value } of this.bindings.values()) {
      // A binding naming a policy that does not exist is ignored, as the API server ignores it.
      if (!this.policies.has(value.policyName)) continue;
      let list = byPolicy.get(value.policyName);
      if (!list) byPolicy.set(value.policyName, (list = []));
      list.push(value);
    }
    const out: BoundPolicy[] = [];
    const schema = { schemas: this.schemas };
    for (const name of [...this.policies.keys()].sort()) {
      yield;
      const { value, doc } = this.policies.get(name)!;
      const sortedBindings = () => (byPolicy.get(name) ?? []).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (this.compileOnFirstUse) {
        let program: PolicyProgram | undefined;
        out.push(Object.freeze({ policy: value, bindings: Object.freeze(sortedBindings()), get program() { return (program ??= compilePolicy(value, schema).program); } }));
        continue;
      }
      const compiled = compilePolicy(value, schema);
      if (compiled.errors.length > 0 && !this.keepUncompiled) {
        this.report(doc, compiled.errors, 'ignored'); // refused; its bindings then name no policy
        continue;
      }
      this.report(doc, compiled.errors, 'kept');
      out.push(Object.freeze({ policy: value, bindings: Object.freeze(sortedBindings()), program: compiled.program }));
    }
    return out;
  }

  get crds(): number {
    return this.crdCount;
  }

  get bindingCount(): number {
    return this.bindings.size;
  }
}

function flatten(input: readonly Input[] | ParsedSource): { documents: SourceDocument[]; problems: Problem[]; validatedAtBuild: boolean } {
  const list: readonly Input[] = Array.isArray(input) ? input : [input as ParsedSource];
  const documents: SourceDocument[] = [];
  const problems: Problem[] = [];
  const validatedAtBuild = list.length > 0 && list.every((entry) => 'documents' in entry && entry.validatedAtBuild === true);
  for (const entry of list) {
    if ('documents' in entry) {
      documents.push(...entry.documents);
      problems.push(...entry.problems);
    } else {
      documents.push(entry);
    }
  }
  return { documents, problems, validatedAtBuild };
}

export function buildPolicySet(input: readonly Input[] | ParsedSource, options: BuildOptions = {}): PolicySet {
  const steps = buildSteps(input, options);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/** Time {@link buildPolicySetInSlices} works before it awaits its pause. */
export const BUILD_SLICE_MS = 8;

/**
 * {@link buildPolicySet}, a slice of documents and policies at a time, awaiting `pause` once a slice has
 * taken `sliceMs`: on a server the thread that builds a set also answers probes and reviews, and a set of
 * 3,000 MutatingAdmissionPolicies took 3 s to build (compile) in one go, 40 CRDs of 590 KB 100-200 ms. The
 * same result as buildPolicySet; rejects with `pause()`'s rejection. Where the clock does not move while
 * code runs (Workers) it never pauses.
 */
export async function buildPolicySetInSlices(input: readonly Input[] | ParsedSource, options: BuildOptions, pause: () => Promise<void>, sliceMs = BUILD_SLICE_MS): Promise<PolicySet> {
  const steps = buildSteps(input, options);
  let sliceStart = performance.now();
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await pause();
      sliceStart = performance.now();
    }
  }
}

/** The build, yielding after each document and each policy compiled: where a sliced build may pause. */
function* buildSteps(input: readonly Input[] | ParsedSource, options: BuildOptions): Generator<void, PolicySet> {
  const { documents, problems, validatedAtBuild } = flatten(input);
  const b = new Builder(options, validatedAtBuild);
  b.problems.push(...problems);
  const classified = documents.map((doc) => {
    const apiVersion = getOwn(doc.value, 'apiVersion');
    const kind = getOwn(doc.value, 'kind');
    return { doc, apiVersion: typeof apiVersion === 'string' ? apiVersion : '', kind: typeof kind === 'string' ? kind : '' };
  });
  // CRDs first: they decide the scope and typing of the objects that follow, wherever they appear.
  for (const c of classified) {
    if (!c.apiVersion || !c.kind) {
      const missing = [!c.apiVersion ? 'apiVersion' : undefined, !c.kind ? 'kind' : undefined].filter(Boolean) as string[];
      b.report(c.doc, missing.map((m) => ({ path: m, message: 'Required value' })), 'ignored');
    } else if (c.apiVersion.startsWith('apiextensions.k8s.io/') && c.kind === 'CustomResourceDefinition') {
      b.addCrd(c.doc);
    }
    yield;
  }
  for (const c of classified) {
    if (!c.apiVersion || !c.kind) continue;
    if (POLICY_API_VERSIONS.includes(c.apiVersion) && c.kind === 'MutatingAdmissionPolicy') b.addPolicy(c.doc);
    else if (POLICY_API_VERSIONS.includes(c.apiVersion) && c.kind === 'MutatingAdmissionPolicyBinding') b.addBinding(c.doc, c.apiVersion);
    else if (isKyvernoPolicyDocument(c.doc.value)) b.addKyverno(c.doc);
    else if (isMutatingPolicyDocument(c.doc.value)) b.addMutatingPolicy(c.doc);
    else {
      // A document of a policy API group that Amender does not read is reported, never a param.
      const foreign = foreignKyvernoKind(c.apiVersion, c.kind);
      const problem = foreign !== undefined ? { path: 'kind', message: foreign } : admissionKindProblem(c.apiVersion, c.kind);
      if (problem) b.leaveOut(c.doc, problem);
      else b.addObject(c.doc);
    }
    yield;
  }
  yield* b.finishKyverno();
  b.objects.seal(b.schemas);
  const admissionPolicies = yield* b.boundPolicies();
  const kyvernoMutating = yield* b.kyvernoMutatingPolicies();
  const mutatingPolicies = Object.freeze([...admissionPolicies, ...kyvernoMutating]);
  const kyvernoPolicies = Object.freeze(b.kyvernoPolicies());
  const counts: PolicySetCounts = {
    mutatingAdmissionPolicies: admissionPolicies.length,
    mutatingAdmissionPolicyBindings: b.bindingCount,
    kyvernoPolicies: kyvernoPolicies.length,
    kyvernoMutatingPolicies: new Set(kyvernoMutating.map((p) => `${p.kyverno!.kind}/${p.policy.name}`)).size,
    params: b.objects.size,
    namespaces: b.objects.namespaceCount,
    customResourceDefinitions: b.crds,
    problems: b.problems.length,
  };
  return Object.freeze({
    mutatingPolicies,
    objects: b.objects,
    schemas: b.schemas,
    kyvernoPolicies,
    problems: Object.freeze(b.problems),
    counts: Object.freeze(counts),
  });
}
