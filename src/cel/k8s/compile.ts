/**
 * Compiling admission expressions for a role (spec map.md §7.7, §12): the environment per role and
 * scope, the result-type check, the Kubernetes error texts, and the process-wide program cache.
 */
import type { Env } from '../engine/env.js';
import { compile as compileProgram, type Program } from '../engine/program.js';
import { T, listOf, structType, type CelType } from '../engine/types.js';
import { LruCache, type CacheStats } from './cache.js';
import { kubernetesEnvs, scopeEnv, type CelDialect, type KubernetesEnvs } from './environment.js';
import { JSONPATCH_TYPE, OBJECT_TYPE } from './types.js';
import { VariableScope } from './variable-scope.js';

export type CelRole = 'matchCondition' | 'variable' | 'jsonPatch' | 'applyConfiguration';

export const ROLES: readonly CelRole[] = ['matchCondition', 'variable', 'jsonPatch', 'applyConfiguration'];

/** What an expression may reference besides the fixed admission variables. */
export interface CompileScope {
  /** The policy has a paramKind: `params` is declared (it may still be null at runtime). */
  params: boolean;
  /** Earlier variables of the policy and their static types (in declaration order); none by default. */
  variables?: VariableScope;
  /**
   * `kyverno` for Kyverno's CEL policies: Kyverno's libraries, and matchConditions compiled like every
   * other expression (they may use `variables` and `Object`). Default `kubernetes`.
   */
  dialect?: CelDialect;
  /**
   * Declare the patch types (`Object`, `JSONPatch`) and `jsonpatch.escapeKey`. Default: every role but
   * `matchCondition` (the `variable` role doubles as the CLI's any-result role). A MutatingAdmissionPolicy's
   * variables are compiled with `false`: kube-apiserver compiles them without HasPatchTypes
   * (mutating/compilation.go compilePolicy; admission/plugin/cel/compile.go createEnvForOpts).
   * Kyverno's dialect ignores it.
   */
  patchTypes?: boolean;
}

/** A compiled, type-checked expression; immutable and shared across policies through the cache. */
export class CompiledExpression {
  constructor(
    readonly expression: string,
    readonly role: CelRole,
    readonly type: CelType,
    /** @internal */ readonly program: Program,
  ) {}

  /** The static result type as cel-go prints it (`bool`, `list(JSONPatch)`, `Object`, ...). */
  get typeName(): string {
    return this.type.toString();
  }
}

export type CompileResult = { ok: true; compiled: CompiledExpression } | { ok: false; message: string };

const EXPECTED: Partial<Record<CelRole, CelType>> = {
  matchCondition: T.bool,
  jsonPatch: listOf(structType(JSONPATCH_TYPE)),
  applyConfiguration: structType(OBJECT_TYPE),
};

const DEFAULT_CACHE_CAPACITY = 4096;
const cache = new LruCache<CompileResult>(DEFAULT_CACHE_CAPACITY);

/** Whether the expression is compiled without the patch types (see CompileScope.patchTypes). */
function withoutPatchTypes(role: CelRole, scope: CompileScope): boolean {
  if (scope.dialect === 'kyverno') return false;
  return role === 'matchCondition' || scope.patchTypes === false;
}

function scopeKey(role: CelRole, scope: CompileScope): string {
  return (scope.dialect === 'kyverno' ? 'K' : '') + (withoutPatchTypes(role, scope) ? 'c' : 'm') + (scope.params ? 'P' : '-') + (scope.variables?.key ?? '');
}

function envFor(envs: KubernetesEnvs, role: CelRole, scope: CompileScope): Env {
  return withoutPatchTypes(role, scope) ? envs.conditions : envs.mutations;
}

/** Environments per (role family, scope): building one is cheap, reusing it is cheaper. */
const scopeEnvs = new LruCache<Env>(256);

function envForScope(envs: KubernetesEnvs, role: CelRole, scope: CompileScope, key: string): Env {
  let env = scopeEnvs.get(key);
  if (!env) {
    env = scopeEnv(envFor(envs, role, scope), { params: scope.params, variables: scope.variables ?? VariableScope.EMPTY });
    scopeEnvs.set(key, env);
  }
  return env;
}

/** Compiles (or fetches from the cache) one expression. Never throws. */
export function compileExpression(expression: string, role: CelRole, scope: CompileScope): CompileResult {
  if (typeof expression !== 'string') return { ok: false, message: 'compilation failed: expression must be a string' };
  const key = `${role}\u0000${scopeKey(role, scope)}\u0000${expression}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const result = compileUncached(expression, role, scope);
  cache.set(key, result);
  return result;
}

/** Compiles without the cache (benchmarks measure the real work with it). */
export function compileUncached(expression: string, role: CelRole, scope: CompileScope): CompileResult {
  try {
    const envs = kubernetesEnvs(scope.dialect);
    const env = envForScope(envs, role, scope, scopeKey(role, scope));
    const out = compileProgram(expression, env, { validateLiterals: true, plan: envs.planOptions });
    // kube-apiserver checks the result type before it creates the program, and reports a failed program
    // creation bare: `program instantiation failed: ...` (admission/plugin/cel/compile.go).
    if (!out.ok && !out.instantiation) return { ok: false, message: `compilation failed: ${out.message}` };
    const type = (out.ok ? out.type : out.instantiation!.type) ?? T.dyn;
    const expected = EXPECTED[role];
    if (expected && type.toString() !== expected.toString()) {
      return { ok: false, message: `must evaluate to ${expected} but got ${type}` };
    }
    if (!out.ok) return { ok: false, message: out.instantiation!.message };
    return { ok: true, compiled: new CompiledExpression(expression, role, type, out.program) };
  } catch (e) {
    return { ok: false, message: `compilation failed: internal error: ${(e as Error).message}` };
  }
}

export function programCacheStats(): CacheStats {
  return cache.stats();
}

/** Resizes (and empties) the program cache; for tests and configuration. */
export function configureProgramCache(capacity: number): void {
  cache.capacity = Math.max(1, Math.floor(capacity));
  cache.clear();
}
