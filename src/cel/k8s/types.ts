/**
 * The Kubernetes object types of the admission CEL environment (spec map.md §7.2, §7.3, §8.1, §9.1):
 * `kubernetes.AdmissionRequest`, `kubernetes.Namespace` (only the listed fields exist), `JSONPatch`,
 * and the dynamic `Object` / `Object.<path>` types whose fields are all `dyn`.
 */
import type { Env, StructDecl } from '../engine/env.js';
import { T, listOf, mapOf, structType, type CelType } from '../engine/types.js';
import { StructValue } from '../engine/values.js';

type OmitEmpty = Record<string, 'value' | 'pointer'>;

function goStruct(name: string, fields: Record<string, CelType>, zeroDefaults = true, omitEmpty?: OmitEmpty): StructDecl {
  const m = new Map(Object.entries(fields));
  return { name, fieldType: (f) => m.get(f), zeroDefaults, ...(omitEmpty ? { omitEmpty: new Map(Object.entries(omitEmpty)) } : {}) };
}

/**
 * The `omitempty` fields of the Go structs behind `request` (admission/v1 AdmissionRequest,
 * authentication/v1 UserInfo) and `namespaceObject` (core/v1 Namespace, meta/v1 ObjectMeta): kube-apiserver
 * binds them through SchemalessTypedToVal (admission/plugin/cel/activation.go; before, their unstructured
 * JSON), where such a field holding its zero value is absent: `request.name` of a generateName create,
 * `request.namespace` of a cluster-scoped object, `request.subResource` without one are `no such key`.
 * `UID` is declared under that name but is `uid` in JSON, so it is never there. Value structs
 * (metadata, spec, status, creationTimestamp, lastTransitionTime) are never empty.
 */
const OMIT_EMPTY: Record<string, OmitEmpty> = {
  'kubernetes.GroupVersionKind': {},
  'kubernetes.GroupVersionResource': {},
  'kubernetes.Namespace': {},
  'kubernetes.AdmissionRequest': { subResource: 'value', requestSubResource: 'value', name: 'value', namespace: 'value' },
  'kubernetes.UserInfo': { username: 'value', uid: 'value', groups: 'value', extra: 'value' },
  'kubernetes.NamespaceMetadata': {
    name: 'value',
    generateName: 'value',
    namespace: 'value',
    labels: 'value',
    annotations: 'value',
    UID: 'value',
    deletionGracePeriodSeconds: 'pointer',
    deletionTimestamp: 'pointer',
    generation: 'value',
    resourceVersion: 'value',
    finalizers: 'value',
  },
  'kubernetes.NamespaceSpec': { finalizers: 'value' },
  'kubernetes.NamespaceStatus': { conditions: 'value', phase: 'value' },
  'kubernetes.NamespaceCondition': { message: 'value', reason: 'value' },
};

export const REQUEST_TYPE = 'kubernetes.AdmissionRequest';
export const NAMESPACE_TYPE = 'kubernetes.Namespace';
export const JSONPATCH_TYPE = 'JSONPatch';
export const OBJECT_TYPE = 'Object';
export const VARIABLES_TYPE = 'kubernetes.variables';
export const EXCEPTION_TYPE = 'libs.Exception';

/**
 * Kyverno's `exceptions` variable: what matched PolicyExceptions allow, the Go struct libs.Exception
 * (ext.NativeTypes with its `cel` tags: type() is libs.Exception, == compares Go values). Amender reads
 * no PolicyException, so it is always Kyverno's empty one (two empty, non-nil slices).
 */
const EXCEPTION_FIELDS = { allowedImages: listOf(T.string), allowedValues: listOf(T.string) };

export function declareKyvernoExceptions(env: Env): void {
  env.addStruct({ ...goStruct(EXCEPTION_TYPE, EXCEPTION_FIELDS), native: true });
}

const exceptionZero = (f: string) => (Object.hasOwn(EXCEPTION_FIELDS, f) ? Object.freeze([]) : undefined);

export const NO_EXCEPTIONS = new StructValue(
  EXCEPTION_TYPE,
  new Map([
    ['allowedImages', Object.freeze([])],
    ['allowedValues', Object.freeze([])],
  ]),
  exceptionZero,
);

/**
 * `requestObjects`: the request also has `object` and `oldObject` (dyn), as Kyverno's request type adds
 * them for its CEL policies; kube-apiserver's has neither. The fields of OMIT_EMPTY holding their zero value
 * are absent in both: Kyverno binds `request` and `namespaceObject` as their unstructured JSON
 * (mpol/compiler/eval.go prepareData, runtime.DefaultUnstructuredConverter, which drops omitempty zeros).
 */
export function declareRequestAndNamespace(env: Env, options: { requestObjects?: boolean } = {}): void {
  const struct = (name: string, fields: Record<string, CelType>) => goStruct(name, fields, true, OMIT_EMPTY[name]);
  const strList = listOf(T.string);
  env.addStruct(struct('kubernetes.GroupVersionKind', { group: T.string, version: T.string, kind: T.string }));
  env.addStruct(struct('kubernetes.GroupVersionResource', { group: T.string, version: T.string, resource: T.string }));
  env.addStruct(
    struct('kubernetes.UserInfo', { username: T.string, uid: T.string, groups: strList, extra: mapOf(T.string, strList) }),
  );
  env.addStruct(
    struct(REQUEST_TYPE, {
      kind: structType('kubernetes.GroupVersionKind'),
      resource: structType('kubernetes.GroupVersionResource'),
      subResource: T.string,
      requestKind: structType('kubernetes.GroupVersionKind'),
      requestResource: structType('kubernetes.GroupVersionResource'),
      requestSubResource: T.string,
      name: T.string,
      namespace: T.string,
      operation: T.string,
      userInfo: structType('kubernetes.UserInfo'),
      dryRun: T.bool,
      options: T.dyn,
      ...(options.requestObjects ? { object: T.dyn, oldObject: T.dyn } : {}),
    }),
  );
  env.addStruct(struct('kubernetes.NamespaceSpec', { finalizers: strList }));
  env.addStruct(
    struct('kubernetes.NamespaceCondition', {
      status: T.string,
      type: T.string,
      lastTransitionTime: T.timestamp,
      message: T.string,
      reason: T.string,
    }),
  );
  env.addStruct(
    struct('kubernetes.NamespaceStatus', { conditions: listOf(structType('kubernetes.NamespaceCondition')), phase: T.string }),
  );
  env.addStruct(
    struct('kubernetes.NamespaceMetadata', {
      name: T.string,
      generateName: T.string,
      namespace: T.string,
      labels: mapOf(T.string, T.string),
      annotations: mapOf(T.string, T.string),
      UID: T.string,
      creationTimestamp: T.timestamp,
      deletionGracePeriodSeconds: T.int,
      deletionTimestamp: T.timestamp,
      generation: T.int,
      resourceVersion: T.string,
      finalizers: strList,
    }),
  );
  env.addStruct(
    struct(NAMESPACE_TYPE, {
      metadata: structType('kubernetes.NamespaceMetadata'),
      spec: structType('kubernetes.NamespaceSpec'),
      status: structType('kubernetes.NamespaceStatus'),
    }),
  );
}

/** `JSONPatch` and `Object.*`, available to mutation expressions (and variables). */
export function declarePatchTypes(env: Env): void {
  env.addStruct(goStruct(JSONPATCH_TYPE, { op: T.string, path: T.string, from: T.string, value: T.dyn }, false));
  const objectDecls = new Map<string, StructDecl>();
  env.addStructResolver((name) => {
    if (name !== OBJECT_TYPE && !name.startsWith(`${OBJECT_TYPE}.`)) return undefined;
    let d = objectDecls.get(name);
    if (!d) {
      d = { name, fieldType: () => T.dyn };
      if (objectDecls.size < 10_000) objectDecls.set(name, d);
    }
    return d;
  });
}

/** The static type of each variable an expression may reference (a VariableScope). */
export interface VariableTypes {
  get(name: string): CelType | undefined;
}

/** The `variables` object type: one field per declared variable, with its static type. */
export function variablesStruct(fields: VariableTypes): StructDecl {
  return { name: VARIABLES_TYPE, fieldType: (f) => fields.get(f) };
}
