/**
 * The Kubernetes admission CEL environments (spec map.md §7, §12): the standard library, the
 * Kubernetes and cel-go extension libraries, the admission variables, and — for mutations — the
 * `Object`/`JSONPatch` types. Built once per process; a policy's variables extend it cheaply.
 */
import type { CelLibrary } from '../library.js';
import { Env, declareStandardTypes } from '../engine/env.js';
import { LibraryHost } from '../engine/library-host.js';
import type { PlanOptions } from '../engine/planner.js';
import { registerStdlib } from '../engine/stdlib.js';
import { T, structType } from '../engine/types.js';
import {
  declareKyvernoExceptions,
  declarePatchTypes,
  declareRequestAndNamespace,
  EXCEPTION_TYPE,
  NAMESPACE_TYPE,
  REQUEST_TYPE,
  VARIABLES_TYPE,
  variablesStruct,
  type VariableTypes,
} from './types.js';
import {
  AUTHORIZER_TYPE,
  kubernetesEqualsCost,
  KUBERNETES_LIBRARIES as libraries,
  MUTATION_ONLY_LIBRARIES as mutationOnly,
  RESOURCE_CHECK_TYPE,
} from '../lib/index.js';
import { kyvernoLibraries } from '../lib/kyverno/index.js';

export interface KubernetesEnvs {
  /** matchConditions: no Object/JSONPatch types. */
  readonly conditions: Env;
  /** Mutations and variables: with Object/JSONPatch. */
  readonly mutations: Env;
  readonly host: LibraryHost;
  readonly planOptions: PlanOptions;
  /** Libraries that failed to register (reported, not fatal). */
  readonly libraryErrors: readonly string[];
}

let envs: KubernetesEnvs | undefined;
let kyvernoEnvs: KubernetesEnvs | undefined;

/**
 * Which environment an expression is compiled in: `kubernetes` (the API server's, for
 * MutatingAdmissionPolicy) or `kyverno` (Kyverno's CEL policies: the same plus Kyverno's libraries).
 */
export type CelDialect = 'kubernetes' | 'kyverno';

export function kubernetesEnvs(dialect: CelDialect = 'kubernetes'): KubernetesEnvs {
  if (dialect === 'kyverno') {
    return (kyvernoEnvs ??= buildEnvs([...libraries, ...kyvernoLibraries], { requestObjects: true, kyvernoExceptions: true }));
  }
  return (envs ??= buildEnvs(libraries));
}

/**
 * Builds fresh environments with the given libraries (tests use this to add or omit libraries);
 * `requestObjects` declares `request.object`/`request.oldObject` (Kyverno's request type),
 * `kyvernoExceptions` Kyverno's `exceptions` variable instead of `authorizer`.
 */
export function buildEnvs(
  libs: readonly CelLibrary[],
  options: { requestObjects?: boolean; kyvernoExceptions?: boolean } = {},
): KubernetesEnvs {
  const base = new Env(undefined, { homogeneousAggregateLiterals: true });
  declareStandardTypes(base);
  registerStdlib(base);
  const host = new LibraryHost(base);
  const libraryErrors: string[] = [];
  const add = (lib: CelLibrary, target: Env) => {
    try {
      host.add(lib, target);
    } catch (e) {
      libraryErrors.push((e as Error).message);
    }
  };
  for (const lib of libs) if (!mutationOnly.has(lib.name)) add(lib, base);
  declareRequestAndNamespace(base, options);
  const authorizer = base.lookupTypeName(AUTHORIZER_TYPE) ?? base.addOpaqueType(AUTHORIZER_TYPE);
  const resourceCheck = base.lookupTypeName(RESOURCE_CHECK_TYPE) ?? base.addOpaqueType(RESOURCE_CHECK_TYPE);
  base.addIdent({ name: 'object', type: T.dyn });
  base.addIdent({ name: 'oldObject', type: T.dyn });
  base.addIdent({ name: 'request', type: structType(REQUEST_TYPE) });
  base.addIdent({ name: 'namespaceObject', type: structType(NAMESPACE_TYPE) });
  if (!options.kyvernoExceptions) {
    // Kyverno's MutatingPolicy environment declares no authorizer: there `authorizer` does not compile.
    base.addIdent({ name: 'authorizer', type: authorizer });
    base.addIdent({ name: 'authorizer.requestResource', type: resourceCheck });
  } else {
    declareKyvernoExceptions(base);
    base.addIdent({ name: 'exceptions', type: structType(EXCEPTION_TYPE) });
  }
  const mutations = base.extend();
  declarePatchTypes(mutations);
  // jsonpatch.escapeKey exists for mutations only, as in kube-apiserver.
  for (const lib of libs) if (mutationOnly.has(lib.name)) add(lib, mutations);
  const planOptions: PlanOptions = {
    libraryCost: (o, args, result) => host.cost(o, args, result),
    libraryCostFromArgs: (o, args) => host.costFromArgs(o, args),
    // Kubernetes' cost estimator prices == of its own values (Kyverno's environments use it too).
    equalsCost: kubernetesEqualsCost,
  };
  return { conditions: base, mutations, host, planOptions, libraryErrors };
}

/** Declarations a single expression is compiled with: params and the policy's earlier variables. */
export interface ExpressionScope {
  params: boolean;
  variables: VariableTypes;
}

/** The environment for one expression: base + params + `variables`. */
export function scopeEnv(base: Env, scope: ExpressionScope): Env {
  const env = base.extend();
  if (scope.params) env.addIdent({ name: 'params', type: T.dyn });
  env.addStruct(variablesStruct(scope.variables));
  env.addIdent({ name: 'variables', type: structType(VARIABLES_TYPE) });
  return env;
}
