/**
 * Decodes MutatingAdmissionPolicy / MutatingAdmissionPolicyBinding documents (plain JSON) into the typed
 * shapes of types.ts, the way the API server's strict decoder does: a value of the wrong JSON type or a
 * field the API does not have is an error at its field path; `null` means "not set".
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/index.js';
import { FieldPath, typeError, unknownField, type FieldError } from './field-errors.js';
import type { LabelSelector, LabelSelectorRequirement } from './labels.js';
import type {
  MatchResources,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  Mutation,
  NamedExpression,
  NamedRuleWithOperations,
  ParamRef,
} from './types.js';

export interface Decoded<T> {
  value: T;
  errors: FieldError[];
}

class Reader {
  readonly errors: FieldError[] = [];

  /** The object at `path`, or undefined (with an error when it is not an object); checks field names. */
  object(value: JsonValue | undefined, path: FieldPath, known: readonly string[] | null): JsonObject | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isJsonObject(value)) {
      this.errors.push(typeError(path, value, 'an object'));
      return undefined;
    }
    if (known) for (const key of Object.keys(value)) if (!known.includes(key)) this.errors.push(unknownField(path.child(key)));
    return value;
  }

  string(obj: JsonObject | undefined, key: string, path: FieldPath): string | undefined {
    const v = obj ? getOwn(obj, key) : undefined;
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      this.errors.push(typeError(path.child(key), v, 'a string'));
      return undefined;
    }
    return v;
  }

  list<T>(obj: JsonObject | undefined, key: string, path: FieldPath, item: (v: JsonValue, p: FieldPath) => T | undefined): T[] | undefined {
    const v = obj ? getOwn(obj, key) : undefined;
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) {
      this.errors.push(typeError(path.child(key), v, 'a list'));
      return undefined;
    }
    const out: T[] = [];
    v.forEach((entry, i) => {
      const decoded = item(entry, path.child(key).index(i));
      if (decoded !== undefined) out.push(decoded);
    });
    return out;
  }

  stringList(obj: JsonObject | undefined, key: string, path: FieldPath): string[] | undefined {
    return this.list(obj, key, path, (v, p) => {
      if (typeof v === 'string') return v;
      this.errors.push(typeError(p, v, 'a string'));
      return undefined;
    });
  }

  stringMap(obj: JsonObject | undefined, key: string, path: FieldPath): Record<string, string> | undefined {
    const m = this.object(obj ? getOwn(obj, key) : undefined, path.child(key), null);
    if (!m) return undefined;
    const out: Record<string, string> = Object.create(null);
    for (const k of Object.keys(m)) {
      const v = m[k];
      if (typeof v === 'string') out[k] = v;
      else this.errors.push(typeError(path.child(key).key(k), v, 'a string'));
    }
    return out;
  }

  labelSelector(value: JsonValue | undefined, path: FieldPath): LabelSelector | undefined {
    const obj = this.object(value, path, ['matchLabels', 'matchExpressions']);
    if (!obj) return undefined;
    const out: LabelSelector = {};
    const matchLabels = this.stringMap(obj, 'matchLabels', path);
    if (matchLabels) out.matchLabels = matchLabels;
    const matchExpressions = this.list(obj, 'matchExpressions', path, (v, p) => {
      const e = this.object(v, p, ['key', 'operator', 'values']);
      if (!e) return undefined;
      const req: LabelSelectorRequirement = { key: this.string(e, 'key', p) ?? '', operator: this.string(e, 'operator', p) ?? '' };
      const values = this.stringList(e, 'values', p);
      if (values) req.values = values;
      return req;
    });
    if (matchExpressions) out.matchExpressions = matchExpressions;
    return out;
  }

  namedRule(value: JsonValue, path: FieldPath): NamedRuleWithOperations | undefined {
    const obj = this.object(value, path, ['resourceNames', 'operations', 'apiGroups', 'apiVersions', 'resources', 'scope']);
    if (!obj) return undefined;
    const rule: NamedRuleWithOperations = {
      resourceNames: this.stringList(obj, 'resourceNames', path) ?? [],
      operations: this.stringList(obj, 'operations', path) ?? [],
      apiGroups: this.stringList(obj, 'apiGroups', path) ?? [],
      apiVersions: this.stringList(obj, 'apiVersions', path) ?? [],
      resources: this.stringList(obj, 'resources', path) ?? [],
    };
    const scope = this.string(obj, 'scope', path);
    if (scope !== undefined) rule.scope = scope;
    return rule;
  }

  matchResources(value: JsonValue | undefined, path: FieldPath): MatchResources | undefined {
    const obj = this.object(value, path, ['namespaceSelector', 'objectSelector', 'resourceRules', 'excludeResourceRules', 'matchPolicy']);
    if (!obj) return undefined;
    return {
      namespaceSelector: this.labelSelector(getOwn(obj, 'namespaceSelector'), path.child('namespaceSelector')) ?? null,
      objectSelector: this.labelSelector(getOwn(obj, 'objectSelector'), path.child('objectSelector')) ?? null,
      resourceRules: this.list(obj, 'resourceRules', path, (v, p) => this.namedRule(v, p)) ?? [],
      excludeResourceRules: this.list(obj, 'excludeResourceRules', path, (v, p) => this.namedRule(v, p)) ?? [],
      matchPolicy: this.string(obj, 'matchPolicy', path) ?? null,
    };
  }

  namedExpressions(obj: JsonObject | undefined, key: string, path: FieldPath): NamedExpression[] {
    return (
      this.list(obj, key, path, (v, p) => {
        const e = this.object(v, p, ['name', 'expression']);
        if (!e) return undefined;
        return { name: this.string(e, 'name', p) ?? '', expression: this.string(e, 'expression', p) ?? '' };
      }) ?? []
    );
  }

  mutation(value: JsonValue, path: FieldPath): Mutation | undefined {
    const obj = this.object(value, path, ['patchType', 'applyConfiguration', 'jsonPatch']);
    if (!obj) return undefined;
    const m: Mutation = { patchType: this.string(obj, 'patchType', path) ?? '' };
    for (const member of ['applyConfiguration', 'jsonPatch'] as const) {
      const inner = this.object(getOwn(obj, member), path.child(member), ['expression']);
      if (inner) m[member] = { expression: this.string(inner, 'expression', path.child(member)) ?? '' };
    }
    return m;
  }

  /** Reads metadata.name and checks the few metadata members validation looks at. */
  metadata(doc: JsonObject): DecodedMeta & { name: string } {
    const path = FieldPath.root('metadata');
    const meta = this.object(getOwn(doc, 'metadata'), path, null);
    const out: DecodedMeta & { name: string } = {
      name: this.string(meta, 'name', path) ?? '',
    };
    const namespace = this.string(meta, 'namespace', path);
    if (namespace) out.namespace = namespace;
    const labels = this.stringMap(meta, 'labels', path);
    if (labels) out.labels = labels;
    const annotations = this.stringMap(meta, 'annotations', path);
    if (annotations) out.annotations = annotations;
    return out;
  }
}

const TOP_LEVEL = ['apiVersion', 'kind', 'metadata', 'spec', 'status'];

export interface DecodedMeta {
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function decodePolicy(doc: JsonObject): Decoded<MutatingAdmissionPolicy> & { meta: DecodedMeta } {
  const r = new Reader();
  r.object(doc, FieldPath.root(''), TOP_LEVEL);
  const meta = r.metadata(doc);
  const path = FieldPath.root('spec');
  const spec = r.object(getOwn(doc, 'spec'), path, [
    'paramKind', 'matchConstraints', 'variables', 'mutations', 'failurePolicy', 'matchConditions', 'reinvocationPolicy',
  ]);
  const policy: MutatingAdmissionPolicy = {
    name: meta.name,
    variables: r.namedExpressions(spec, 'variables', path),
    mutations: r.list(spec, 'mutations', path, (v, p) => r.mutation(v, p)) ?? [],
    matchConditions: r.namedExpressions(spec, 'matchConditions', path),
  };
  const paramKind = r.object(spec ? getOwn(spec, 'paramKind') : undefined, path.child('paramKind'), ['apiVersion', 'kind']);
  if (paramKind) {
    const p = path.child('paramKind');
    policy.paramKind = { apiVersion: r.string(paramKind, 'apiVersion', p) ?? '', kind: r.string(paramKind, 'kind', p) ?? '' };
  }
  const constraints = r.matchResources(spec ? getOwn(spec, 'matchConstraints') : undefined, path.child('matchConstraints'));
  if (constraints) policy.matchConstraints = constraints;
  const failurePolicy = r.string(spec, 'failurePolicy', path);
  if (failurePolicy !== undefined) policy.failurePolicy = failurePolicy;
  const reinvocationPolicy = r.string(spec, 'reinvocationPolicy', path);
  if (reinvocationPolicy !== undefined) policy.reinvocationPolicy = reinvocationPolicy;
  return { value: policy, errors: r.errors, meta };
}

export function decodeBinding(doc: JsonObject): Decoded<MutatingAdmissionPolicyBinding> & { meta: DecodedMeta } {
  const r = new Reader();
  r.object(doc, FieldPath.root(''), TOP_LEVEL);
  const meta = r.metadata(doc);
  const path = FieldPath.root('spec');
  const spec = r.object(getOwn(doc, 'spec'), path, ['policyName', 'paramRef', 'matchResources']);
  const binding: MutatingAdmissionPolicyBinding = { name: meta.name, policyName: r.string(spec, 'policyName', path) ?? '' };
  const refPath = path.child('paramRef');
  const ref = r.object(spec ? getOwn(spec, 'paramRef') : undefined, refPath, ['name', 'namespace', 'selector', 'parameterNotFoundAction']);
  if (ref) {
    const paramRef: ParamRef = {};
    const name = r.string(ref, 'name', refPath);
    if (name) paramRef.name = name;
    const namespace = r.string(ref, 'namespace', refPath);
    if (namespace) paramRef.namespace = namespace;
    const selector = r.labelSelector(getOwn(ref, 'selector'), refPath.child('selector'));
    if (selector) paramRef.selector = selector;
    const action = r.string(ref, 'parameterNotFoundAction', refPath);
    if (action) paramRef.parameterNotFoundAction = action;
    binding.paramRef = paramRef;
  }
  const mr = r.matchResources(spec ? getOwn(spec, 'matchResources') : undefined, path.child('matchResources'));
  if (mr) binding.matchResources = mr;
  return { value: binding, errors: r.errors, meta };
}

/** A MatchResources value on its own (no defaults applied), e.g. for tools that test matching. */
export function decodeMatchResources(value: JsonValue): Decoded<MatchResources | undefined> {
  const r = new Reader();
  const mr = r.matchResources(value, FieldPath.root('matchResources'));
  return { value: mr, errors: r.errors };
}
