/**
 * Loading one Kyverno MutatingPolicy / NamespacedMutatingPolicy document into the shapes the
 * MutatingAdmissionPolicy engine runs: its spec read as a MutatingAdmissionPolicy's (same fields and
 * defaults, checked by the same validation where Kyverno checks it (PolicyValidationOptions `kyverno`), run once
 * (never reinvoked, whatever spec.reinvocationPolicy says), and there is no binding nor params), plus what Kyverno adds:
 * autogen variants for pod controllers, the namespace of a NamespacedMutatingPolicy, and problems for
 * what no webhook can do off-cluster (cluster/network CEL libraries: refused; mutateExisting and
 * targets: background work, reported; admission disabled: never runs).
 */
import { CompiledVariables, compileExpression, findClusterCalls, referencesIdentifier } from '../cel/index.js';
import { strconvQuote } from '../go/index.js';
import { isDNS1123Label } from '../k8s/index.js';
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/index.js';
import {
  decodePolicy,
  defaultPolicy,
  depthErrors,
  POLICY_STRUCTURE,
  FieldPath,
  forbidden,
  invalid,
  notSupported,
  typeError,
  unknownField,
  validatePolicy,
  type AuditAnnotation,
  type FieldError,
  type MutatingAdmissionPolicy,
} from '../map/index.js';
import { AUTOGEN_CONTROLLERS, autogenVariants, type AutogenGroup } from './autogen.js';
import { mutatingPolicyKind, type MutatingPolicyKind } from './kinds.js';
import { kyvernoSectionErrors } from './kyverno-fields.js';

/** Spec fields of a MutatingPolicy that a MutatingAdmissionPolicy has too. */
const MAP_FIELDS = ['matchConstraints', 'variables', 'mutations', 'failurePolicy', 'matchConditions', 'reinvocationPolicy'];
/** Spec fields only Kyverno has. */
const KYVERNO_FIELDS = ['auditAnnotations', 'autogen', 'evaluation', 'targetMatchConditions', 'targetMatchConstraints', 'webhookConfiguration'];

export interface LoadedMutatingPolicy {
  kind: MutatingPolicyKind;
  name: string;
  namespace?: string;
  /** `name`, or `namespace/name` for a NamespacedMutatingPolicy (Kyverno's policy key). */
  id: string;
  /** The policy as the engine runs it, then its autogen variants. */
  policies: { policy: MutatingAdmissionPolicy; autogen?: AutogenGroup }[];
  /** Whether it runs at admission at all (spec.evaluation.admission.enabled, default true; false is an error). */
  admission: boolean;
  /** The document is refused or never runs (left out of the set): the errors say why. */
  usable: boolean;
  errors: FieldError[];
  /** Reported; the policy still runs at admission. */
  warnings: FieldError[];
  /** spec.auditAnnotations: compiled with the policy and evaluated after its mutations, as Kyverno does. */
  auditAnnotations: AuditAnnotation[];
  /** spec.evaluation.useServerSideApply: its ApplyConfigurations may set atomic values (merged whole). */
  serverSideApply: boolean;
}

function obj(v: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(v) ? v : undefined;
}

function enabled(section: JsonObject | undefined, key: string, fallback: boolean): boolean {
  const s = section ? obj(getOwn(section, key)) : undefined;
  const e = s ? getOwn(s, 'enabled') : undefined;
  return typeof e === 'boolean' ? e : fallback;
}

/** Every CEL expression of the spec with its field path. */
function expressions(spec: JsonObject): { path: string; expression: string }[] {
  const out: { path: string; expression: string }[] = [];
  const list = (key: string, member: string) => {
    const v = getOwn(spec, key);
    if (!Array.isArray(v)) return;
    v.forEach((item, i) => {
      const e = isJsonObject(item) ? getOwn(item, member) : undefined;
      if (typeof e === 'string') out.push({ path: `spec.${key}[${i}].${member}`, expression: e });
    });
  };
  list('variables', 'expression');
  list('matchConditions', 'expression');
  list('targetMatchConditions', 'expression');
  list('auditAnnotations', 'valueExpression');
  const mutations = getOwn(spec, 'mutations');
  if (Array.isArray(mutations)) {
    mutations.forEach((m, i) => {
      if (!isJsonObject(m)) return;
      // Only the member Kyverno's compiler runs: the other one, or a skipped mutation, never runs.
      const member = kyvernoMember({ patchType: getOwn(m, 'patchType'), jsonPatch: getOwn(m, 'jsonPatch'), applyConfiguration: getOwn(m, 'applyConfiguration') });
      const inner = member ? obj(getOwn(m, member)) : undefined;
      const e = inner ? getOwn(inner, 'expression') : undefined;
      if (typeof e === 'string') out.push({ path: `spec.mutations[${i}].${member}.expression`, expression: e });
    });
  }
  const target = obj(getOwn(spec, 'targetMatchConstraints'));
  const te = target ? getOwn(target, 'expression') : undefined;
  if (typeof te === 'string') out.push({ path: 'spec.targetMatchConstraints.expression', expression: te });
  return out;
}

/** spec.auditAnnotations as Kyverno decodes them (admissionregistration's AuditAnnotation: key, valueExpression). */
function auditAnnotationsOf(spec: JsonObject, errors: FieldError[]): AuditAnnotation[] {
  const list = getOwn(spec, 'auditAnnotations');
  if (list === undefined || list === null) return [];
  const path = FieldPath.root('spec').child('auditAnnotations');
  if (!Array.isArray(list)) {
    errors.push(typeError(path, list, 'a list'));
    return [];
  }
  const out: AuditAnnotation[] = [];
  list.forEach((item, i) => {
    if (!isJsonObject(item)) {
      errors.push(typeError(path.index(i), item, 'an object'));
      return;
    }
    for (const key of Object.keys(item)) if (key !== 'key' && key !== 'valueExpression') errors.push(unknownField(path.index(i).child(key)));
    const key = getOwn(item, 'key');
    const valueExpression = getOwn(item, 'valueExpression');
    if (key !== undefined && typeof key !== 'string') errors.push(typeError(path.index(i).child('key'), key, 'a string'));
    if (valueExpression !== undefined && typeof valueExpression !== 'string') errors.push(typeError(path.index(i).child('valueExpression'), valueExpression, 'a string'));
    out.push({ key: typeof key === 'string' ? key : '', valueExpression: typeof valueExpression === 'string' ? valueExpression : '' });
  });
  return out;
}

type Mutation = MutatingAdmissionPolicy['mutations'][number];
type NamedRule = NonNullable<MutatingAdmissionPolicy['matchConstraints']>['resourceRules'][number];

/**
 * A mutation Kyverno's compiler skips (compiler.go Compile: `switch m.PatchType`, each case only when its
 * own member is set): it stands in place as a JSON patch of no operation, so the indexes of the others,
 * which the compiler's errors name, stay as written.
 */
const SKIPPED_MUTATION: Mutation = Object.freeze({ patchType: 'JSONPatch', jsonPatch: Object.freeze({ expression: '[JSONPatch{}].filter(p, false)' }) });

/** Whether Kyverno's compiler runs mutation `m`, and with which member (the other is ignored). */
function kyvernoMember(m: { patchType?: unknown; jsonPatch?: unknown; applyConfiguration?: unknown }): 'jsonPatch' | 'applyConfiguration' | undefined {
  if (m.patchType === 'JSONPatch') return m.jsonPatch !== undefined && m.jsonPatch !== null ? 'jsonPatch' : undefined;
  if (m.patchType === 'ApplyConfiguration') return m.applyConfiguration !== undefined && m.applyConfiguration !== null ? 'applyConfiguration' : undefined;
  return undefined;
}

/** The mutations as Kyverno's compiler builds its patchers: each with the member its patchType names, or skipped. */
function kyvernoMutations(mutations: readonly Mutation[]): Mutation[] {
  return mutations.map((m) => {
    const member = kyvernoMember(m);
    if (member === undefined) return SKIPPED_MUTATION;
    return member === 'jsonPatch' ? { patchType: 'JSONPatch', jsonPatch: m.jsonPatch! } : { patchType: 'ApplyConfiguration', applyConfiguration: m.applyConfiguration! };
  });
}

/**
 * What Kyverno's CRD schema (config/crds/policies.kyverno.io) makes the API server refuse, which the MAP
 * decoder and Kyverno's mpol.Validate do not check: members it marks `required` (the decoder reads them
 * as empty strings), and the `x-kubernetes-list-type: map` lists keyed by `name` (matchConditions,
 * variables, targetMatchConditions), whose names must be unique (apiextensions' list-map validation).
 */
function crdSchema(spec: JsonObject, errors: FieldError[]): void {
  // The object items of a list with their indexes (other shapes are the decoder's to report).
  const items = (v: JsonValue | undefined): [JsonObject, number][] => {
    if (!Array.isArray(v)) return [];
    return v.flatMap((item, i): [JsonObject, number][] => (isJsonObject(item) ? [[item, i]] : []));
  };
  const required = (list: JsonValue | undefined, path: string, members: string[]): void => {
    for (const [item, i] of items(list)) {
      for (const member of members) {
        const v = getOwn(item, member);
        if (v === undefined || v === null) errors.push({ path: `${path}[${i}].${member}`, message: 'Required value' });
      }
    }
  };
  const listMap = (key: string, members: string[]): void => {
    const list = getOwn(spec, key);
    required(list, `spec.${key}`, members);
    const seen = new Set<string>();
    for (const [item, i] of items(list)) {
      const name = getOwn(item, 'name');
      if (typeof name !== 'string') continue;
      if (seen.has(name)) errors.push({ path: `spec.${key}[${i}]`, message: `Duplicate value: map[string]interface {}{"name":${strconvQuote(name)}}` });
      seen.add(name);
    }
  };
  listMap('matchConditions', ['name']);
  listMap('variables', ['name']);
  listMap('targetMatchConditions', ['expression', 'name']);
  required(getOwn(spec, 'auditAnnotations'), 'spec.auditAnnotations', ['key', 'valueExpression']);
  required(getOwn(spec, 'mutations'), 'spec.mutations', ['patchType']);
  // A label selector requirement needs its key and operator.
  for (const constraints of ['matchConstraints', 'targetMatchConstraints']) {
    const c = obj(getOwn(spec, constraints));
    for (const selector of ['namespaceSelector', 'objectSelector']) {
      const sel = c ? obj(getOwn(c, selector)) : undefined;
      if (sel) required(getOwn(sel, 'matchExpressions'), `spec.${constraints}.${selector}.matchExpressions`, ['key', 'operator']);
    }
  }
}

/**
 * spec.targetMatchConditions never run at admission, but Kyverno's compiler compiles them with the
 * policy (compiler.go Compile: CompileMatchConditions, after the variables, a bool result required) and
 * refuses the policy when one does not compile.
 */
function targetConditionErrors(spec: JsonObject, variables: MutatingAdmissionPolicy['variables']): FieldError[] {
  const list = getOwn(spec, 'targetMatchConditions');
  if (!Array.isArray(list) || list.length === 0) return [];
  const scope = CompiledVariables.compile(variables, { params: false, dialect: 'kyverno' }).scope();
  const errors: FieldError[] = [];
  list.forEach((item, i) => {
    const expression = isJsonObject(item) ? getOwn(item, 'expression') : undefined;
    // One calling a cluster library is refused for that call (below), in words clearer than 'undeclared'.
    if (typeof expression !== 'string' || findClusterCalls(expression).length > 0) return;
    const result = compileExpression(expression, 'matchCondition', scope);
    if (!result.ok) errors.push(invalid(FieldPath.root('spec').child('targetMatchConditions').index(i).child('expression'), expression, result.message));
  });
  return errors;
}

/**
 * spec.targetMatchConstraints, read by the MutatingAdmissionPolicy decoder as the MatchResources it
 * extends (plus `expression`): Kyverno's CRD refuses another shape, though only its background controller
 * reads the section.
 */
function targetConstraintsErrors(spec: JsonObject): FieldError[] {
  const targets = getOwn(spec, 'targetMatchConstraints');
  if (targets === undefined || targets === null) return [];
  const path = FieldPath.root('spec').child('targetMatchConstraints');
  if (!isJsonObject(targets)) return [typeError(path, targets, 'an object')];
  const errors: FieldError[] = [];
  const matchResources: JsonObject = {};
  for (const key of Object.keys(targets)) if (key !== 'expression') matchResources[key] = targets[key];
  const expression = getOwn(targets, 'expression');
  if (expression !== undefined && expression !== null && typeof expression !== 'string') errors.push(typeError(path.child('expression'), expression, 'a string'));
  const decoded = decodePolicy({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', metadata: {}, spec: { matchConstraints: matchResources } });
  const prefix = 'spec.matchConstraints';
  for (const e of decoded.errors) {
    if (e.path.startsWith(prefix)) errors.push({ path: `${path}${e.path.slice(prefix.length)}`, message: e.message.split(prefix).join(String(path)) });
  }
  return errors;
}

function uniqueCalls<T extends { call: string }>(calls: T[]): T[] {
  return calls.filter((c, i) => calls.findIndex((d) => d.call === c.call) === i);
}

/** spec.autogen.podControllers.controllers (its type errors are kyvernoSectionErrors'). */
function controllersOf(spec: JsonObject): string[] | undefined {
  const autogen = obj(getOwn(spec, 'autogen'));
  const pc = autogen ? obj(getOwn(autogen, 'podControllers')) : undefined;
  const list = pc ? getOwn(pc, 'controllers') : undefined;
  if (!Array.isArray(list)) return undefined;
  return list.filter((c): c is string => typeof c === 'string');
}

/** The MutatingAdmissionPolicy's structure and what only Kyverno has, for the depth check's field path. */
const STRUCTURE: ReadonlySet<string> = new Set([...POLICY_STRUCTURE, 'auditAnnotations', 'targetMatchConstraints', 'targetMatchConditions', 'autogen', 'evaluation']);

export function loadMutatingPolicy(doc: JsonObject): LoadedMutatingPolicy {
  const kind = mutatingPolicyKind(doc) ?? 'MutatingPolicy';
  // Before anything walks it (the decoder, validation, autogen recurse per level): refused by name.
  const tooDeep = depthErrors(doc, STRUCTURE);
  if (tooDeep.length > 0) return { kind, name: '', id: '', policies: [], admission: true, usable: false, errors: tooDeep, warnings: [], auditAnnotations: [], serverSideApply: false };
  const errors: FieldError[] = [];
  const warnings: FieldError[] = [];
  const specPath = FieldPath.root('spec');
  const spec = obj(getOwn(doc, 'spec')) ?? {};
  if (!isJsonObject(getOwn(doc, 'spec'))) errors.push({ path: 'spec', message: 'Required value: spec must not be nil' });
  const meta = obj(getOwn(doc, 'metadata'));
  const ns = meta ? getOwn(meta, 'namespace') : undefined;
  const namespace = kind === 'NamespacedMutatingPolicy' ? (typeof ns === 'string' && ns !== '' ? ns : 'default') : undefined;
  // The API server checks a namespaced object's namespace (a DNS-1123 label); a cluster-wide one's is dropped.
  if (kind === 'NamespacedMutatingPolicy' && ns !== undefined && ns !== null) {
    const nsPath = FieldPath.root('metadata').child('namespace');
    if (typeof ns !== 'string') errors.push(typeError(nsPath, ns, 'a string'));
    else if (ns !== '') for (const msg of isDNS1123Label(ns)) errors.push(invalid(nsPath, ns, msg));
  }

  // The MAP-shaped part, read and validated by the MutatingAdmissionPolicy code.
  const mapSpec: JsonObject = {};
  for (const key of Object.keys(spec)) {
    if (MAP_FIELDS.includes(key)) mapSpec[key] = spec[key];
    else if (!KYVERNO_FIELDS.includes(key)) errors.push(unknownField(specPath.child(key)));
  }
  errors.push(...kyvernoSectionErrors(spec));
  if (mapSpec.reinvocationPolicy === undefined || mapSpec.reinvocationPolicy === null) mapSpec.reinvocationPolicy = 'Never';
  const metadata: JsonObject = {};
  if (meta) for (const key of ['name', 'labels', 'annotations']) if (getOwn(meta, key) !== undefined) metadata[key] = getOwn(meta, key)!;
  const decoded = decodePolicy({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', metadata, spec: mapSpec });
  const policy = defaultPolicy(decoded.value);
  errors.push(...decoded.errors, ...validatePolicy(policy, decoded.meta, { api: 'kyverno' }));
  crdSchema(spec, errors);
  policy.mutations = kyvernoMutations(policy.mutations);
  // Kyverno runs each MutatingPolicy once per call (mpol/engine/engine.go Handle) and registers its
  // webhook without a reinvocationPolicy (controller.go buildForJSONPoliciesMutation: Never); nothing at
  // admission reads spec.reinvocationPolicy, so the policy never runs in a reinvocation pass.
  policy.reinvocationPolicy = 'Never';
  if (policy.matchConstraints) {
    // Kyverno's matcher matches a request without a name by its generateName (src/map/rules.ts GenerateNameRule).
    const mark = (r: NamedRule) => Object.assign({}, r, { matchGenerateName: true as const });
    policy.matchConstraints = { ...policy.matchConstraints, resourceRules: policy.matchConstraints.resourceRules.map(mark), excludeResourceRules: policy.matchConstraints.excludeResourceRules.map(mark) };
  }
  if (!policy.matchConstraints || policy.matchConstraints.resourceRules.length === 0) {
    if (!errors.some((e) => e.path.startsWith('spec.matchConstraints'))) errors.push({ path: 'spec.matchConstraints', message: 'Required value: a matchConstraints with at least one resource rule is required' });
  }

  // What only Kyverno has.
  const evaluation = obj(getOwn(spec, 'evaluation'));
  const admission = enabled(evaluation, 'admission', true);
  const mutateExisting = enabled(evaluation, 'mutateExisting', false);
  const evalPath = specPath.child('evaluation');
  if (!admission && !mutateExisting) errors.push(forbidden(evalPath, 'disabling both admission and mutateExisting evaluation modes is not allowed'));
  else if (!admission) {
    // Left out of the set (an 'ignored' problem): nothing of it runs at admission.
    errors.push({ path: 'spec.evaluation.admission.enabled', message: 'false: the policy never runs at admission (only Kyverno\'s background controller would run it), so Amender never runs it' });
  }
  if (mutateExisting) {
    warnings.push({
      path: 'spec.evaluation.mutateExisting.enabled',
      message: 'mutating existing resources is background work of Kyverno\'s controller (it updates other objects through the API server); no webhook can do it, so Amender skips that part and applies the policy to the admitted object only',
    });
  }
  // Kyverno's webhook skips a policy with targets (NoTargetMatchConstraintPolicy): only its background
  // controller runs it, on the targets. Amender has no background controller, so it never runs.
  const targets = obj(getOwn(spec, 'targetMatchConstraints'));
  const targetRules = targets ? getOwn(targets, 'resourceRules') : undefined;
  const targetExpression = targets ? getOwn(targets, 'expression') : undefined;
  const hasTargets = (Array.isArray(targetRules) && targetRules.length > 0) || (typeof targetExpression === 'string' && targetExpression !== '');
  if (hasTargets) {
    errors.push({
      path: 'spec.targetMatchConstraints',
      message: 'Forbidden: a policy with targets mutates existing resources from Kyverno\'s background controller (it updates other objects through the API server) and Kyverno\'s webhook never runs it at admission; no webhook can do that work, so Amender does not run it',
    });
  } else if (getOwn(spec, 'targetMatchConditions') !== undefined && getOwn(spec, 'targetMatchConditions') !== null) {
    warnings.push({ path: 'spec.targetMatchConditions', message: 'conditions on mutateExisting targets apply to Kyverno\'s background controller only; ignored' });
  }
  errors.push(...targetConditionErrors(spec, policy.variables));
  errors.push(...targetConstraintsErrors(spec));
  // Kyverno's CRD takes any string and its MutatingPolicy engine and webhooks never read the mode: an
  // empty one is the default (MutatingPolicySpec.EvaluationMode: Kubernetes), another runs as Kubernetes.
  const mode = evaluation ? getOwn(evaluation, 'mode') : undefined;
  if (mode === 'JSON') errors.push(invalid(evalPath.child('mode'), mode, 'JSON mode evaluates JSON payloads outside Kubernetes admission; Amender runs Kubernetes admission requests only'));
  else if (typeof mode === 'string' && mode !== '' && mode !== 'Kubernetes') {
    const unsupported = notSupported(evalPath.child('mode'), mode, ['Kubernetes', 'JSON']);
    warnings.push({ path: unsupported.path, message: `${unsupported.message} (Kyverno reads no mode of a MutatingPolicy: it runs at admission as in Kubernetes mode)` });
  }
  // Kyverno then merges ApplyConfigurations without kube-apiserver's atomic guard (mpol compiler smd.go).
  const serverSideApply = evaluation !== undefined && getOwn(evaluation, 'useServerSideApply') === true;
  // Evaluated as Kyverno evaluates them; their values feed Kyverno's reports only, so nothing is reported.
  const auditAnnotations = auditAnnotationsOf(spec, errors);
  for (const { path, expression } of expressions(spec)) {
    for (const call of uniqueCalls(findClusterCalls(expression))) {
      errors.push({ path, message: `Forbidden: ${call.call}() ${call.reason}; Amender runs off-cluster without that access, so a policy using it is refused rather than failing every request it matches` });
    }
  }

  // Kyverno refuses variables in matchConditions when it is to generate a native MutatingAdmissionPolicy
  // (kube-apiserver evaluates matchConditions before variables).
  const autogen = obj(getOwn(spec, 'autogen'));
  if (enabled(autogen, 'mutatingAdmissionPolicy', false)) {
    policy.matchConditions.forEach((c, i) => {
      if (referencesIdentifier(c.expression, 'variables')) {
        errors.push(forbidden(specPath.child('matchConditions').index(i).child('expression'), 'variables cannot be referenced in matchConditions when spec.autogen.mutatingAdmissionPolicy.enabled is true; native MutatingAdmissionPolicy evaluates match conditions before variables, so inline the expression instead'));
      }
    });
  }

  const controllers = controllersOf(spec);
  if (controllers) {
    controllers.forEach((c, i) => {
      if (!AUTOGEN_CONTROLLERS.includes(c)) warnings.push({ path: `spec.autogen.podControllers.controllers[${i}]`, message: `Unsupported value: "${c}": supported values: ${AUTOGEN_CONTROLLERS.map((x) => `"${x}"`).join(', ')} (Kyverno ignores it too)` });
    });
  }
  const name = policy.name;
  const id = namespace === undefined ? name : `${namespace}/${name}`;
  const runnable: MutatingAdmissionPolicy = { ...policy, name: id };
  const policies = [{ policy: runnable }, ...autogenVariants(runnable, controllers).map((v) => ({ policy: v.policy, autogen: v.group }))];
  return { kind, name, ...(namespace !== undefined ? { namespace } : {}), id, policies, admission, usable: errors.length === 0, errors, warnings, auditAnnotations, serverSideApply };
}
