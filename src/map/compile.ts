/**
 * Compiles a policy's expressions with the Kubernetes CEL environment (spec/map.md §12): variables in
 * order (each may use the earlier ones), matchConditions without `variables` (the API forbids them
 * there), then each mutation with its role's result type. An expression that does not compile is
 * reported and the policy stays active: the error surfaces when a request reaches it (§3, §5.3, §12.1).
 * The result is a PolicyProgram the dispatcher drives.
 */
import {
  compileExpression,
  CompiledVariables,
  ConversionError,
  Evaluation,
  RUNTIME_CEL_COST_BUDGET,
  RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
  rootReadPaths,
  SharedVariables,
  toApplyConfiguration,
  toJsonPatchOperations,
  type AdmissionInput,
  type CompileResult,
  type CelDialect,
  type CelValue,
  type ConvertedSize,
  type EvaluationOptions,
} from '../cel/index.js';
import { isJsonObject, ownMember, type JsonObject, type JsonValue } from '../json/index.js';
import { checkJsonSize } from '../jsonpatch/index.js';
import { applyConfigurationMutation, applyJsonPatchMutation, applyUnstructuredJsonPatch, type SchemaContext } from './apply-mutation.js';
import type { InvocationInputs, MutationOutcome, PolicyProgram } from './dispatch.js';
import { FieldPath, invalid, type FieldError } from './field-errors.js';
import { evaluateConditions, type CompiledCondition, type ConditionsVerdict } from './match-conditions.js';
import type { MutatingAdmissionPolicy } from './types.js';

export interface CompiledPolicy {
  program: PolicyProgram;
  /** Compile errors, each at its expression's field path (the policy stays active). */
  errors: FieldError[];
}

interface CompiledMutation {
  patchType: 'JSONPatch' | 'ApplyConfiguration';
  result: CompileResult;
}

/**
 * How a policy's expressions are compiled and its conditions evaluated. `kyverno` (a Kyverno
 * MutatingPolicy run on this engine): Kyverno's CEL libraries, and matchConditions that may read
 * `variables` and `namespaceObject`, as Kyverno evaluates them. Default `kubernetes`.
 */
export interface CompileOptions {
  dialect?: CelDialect;
  /**
   * A Kyverno MutatingPolicy's `spec.auditAnnotations`: Kyverno compiles them with the policy (a string
   * or null result type) and evaluates them on the mutated object after the mutations; an error fails the
   * policy. Their values feed Kyverno's reports only, so nothing keeps them.
   */
  auditAnnotations?: readonly AuditAnnotation[];
  /**
   * A Kyverno MutatingPolicy's `spec.evaluation.useServerSideApply`: its ApplyConfiguration mutations may
   * set atomic lists, maps and structs (merged whole) where kube-apiserver's guard refuses them.
   */
  serverSideApply?: boolean;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

interface CompiledAuditAnnotation {
  key: string;
  result: CompileResult;
}

function celInput(inputs: InvocationInputs, forConditions: boolean): AdmissionInput {
  const p = inputs.params;
  return {
    object: inputs.object,
    oldObject: inputs.oldObject,
    request: inputs.request,
    // `params` exists only for policies with a paramKind (compile-time); null when no param object.
    // (One object shape for every policy: a conditional spread here took V8's slow generic path.)
    params: p.declared ? (p.param ? p.param.value : null) : undefined,
    // matchConditions never see the namespace object (spec/map.md §5.2).
    namespaceObject: forConditions ? null : inputs.namespaceObject,
  };
}

/**
 * Kyverno's `request` also holds the admitted object and oldObject (as received, not as mutated); one the
 * request lacks is `{}`, as for `oldObject` below (prepareData: the zero Unstructured's nil map).
 */
const kyvernoRequests = new WeakMap<JsonObject, JsonObject>();

function kyvernoRequest(inputs: InvocationInputs): JsonObject {
  let r = kyvernoRequests.get(inputs.request);
  if (!r) {
    r = { ...inputs.request, object: inputs.requestObject ?? NO_OLD_OBJECT, oldObject: inputs.oldObject ?? NO_OLD_OBJECT };
    kyvernoRequests.set(inputs.request, r);
  }
  return r;
}

const NO_OLD_OBJECT: JsonObject = Object.freeze({}) as JsonObject;

/**
 * What a Kyverno policy's expressions see: matchConditions too see `namespaceObject` (and `variables`).
 * Without an old object (a CREATE), `oldObject` is `{}`: Kyverno's engine hands its CEL a zero
 * Unstructured (mpol/engine Handle, admissionutils.ExtractResources), which converts to an empty map.
 */
function kyvernoInput(inputs: InvocationInputs): AdmissionInput {
  return { object: inputs.object, oldObject: inputs.oldObject ?? NO_OLD_OBJECT, request: kyvernoRequest(inputs), namespaceObject: inputs.namespaceObject };
}

class Program implements PolicyProgram {
  /**
   * Kyverno: the variables of each invocation (its InvocationInputs, one per run of the policy), kept
   * from the first expression that reads one to the last audit annotation. A MutatingAdmissionPolicy's
   * are evaluated afresh by each Evaluation (kube-apiserver's way).
   */
  private readonly sharedVariables = new WeakMap<InvocationInputs, SharedVariables>();

  /** The options of an Evaluation of this invocation. */
  private options(inputs: InvocationInputs, budget: number): EvaluationOptions {
    if (!this.kyverno) return { budget, variables: this.variables, guard: inputs.guard };
    let shared = this.sharedVariables.get(inputs);
    if (!shared) {
      shared = new SharedVariables(this.variables);
      this.sharedVariables.set(inputs, shared);
    }
    return { budget, guard: inputs.guard, shared };
  }

  constructor(
    private readonly variables: CompiledVariables,
    private readonly conditionsCompiled: readonly CompiledCondition[],
    private readonly mutations: readonly CompiledMutation[],
    private readonly failurePolicy: string | undefined,
    private readonly schema: SchemaContext,
    /** Kyverno: its `request` holds the objects, matchConditions read `variables` and the namespace object. */
    private readonly kyverno: boolean,
    private readonly audits: readonly CompiledAuditAnnotation[] = [],
    /** Kyverno's useServerSideApply: ApplyConfigurations may set atomic values. */
    private readonly atomics: 'refuse' | 'merge' = 'refuse',
  ) {}

  /**
   * Kyverno's audit annotations on the object as the mutations left it: the first that fails to evaluate,
   * or whose value is not a string (Kyverno converts it to a Go string; null does not convert), is the
   * policy's error. Undefined when all evaluate.
   */
  afterMutations(inputs: InvocationInputs): string | undefined {
    if (this.audits.length === 0) return undefined;
    const evaluation = new Evaluation(kyvernoInput(inputs), this.options(inputs, RUNTIME_CEL_COST_BUDGET));
    for (const a of this.audits) {
      if (!a.result.ok) return a.result.message;
      const r = evaluation.evaluate(a.result.compiled);
      if (!r.ok) return `failed to evaluate auditAnnotation ${JSON.stringify(a.key)}: ${r.message}`;
      if (typeof r.value !== 'string') {
        return `failed to convert auditAnnotation ${JSON.stringify(a.key)} expression: type conversion error from '${r.value === null ? 'null_type' : typeof r.value}' to 'string'`;
      }
    }
    return undefined;
  }

  /** The paths along which the matchConditions read `object` (rootReadPaths); null when not known. */
  private conditionReads: string[][] | null | undefined;

  /**
   * Whether the matchConditions read the same values in `a` and `b` (every other input the same), so that
   * they would give the same verdict on both: false when that is not known. A MutatingAdmissionPolicy's
   * conditions see `object`, `oldObject`, `request` and `params` only (no variables, no namespace object).
   */
  conditionsReadSame(a: JsonValue | null, b: JsonValue | null): boolean {
    if (this.kyverno) return false;
    if (this.conditionReads === undefined) {
      let reads: string[][] | null = [];
      for (const c of this.conditionsCompiled) {
        const paths = c.result.ok ? rootReadPaths(c.result.compiled.expression, 'object') : undefined;
        if (paths === undefined) {
          reads = null;
          break;
        }
        reads.push(...paths);
      }
      this.conditionReads = reads;
    }
    const reads = this.conditionReads;
    if (reads === null) return false;
    for (let i = 0; i < reads.length; i++) if (!sameAlong(a, b, reads[i])) return false;
    return true;
  }

  get mutationCount(): number {
    return this.mutations.length;
  }

  conditions(inputs: InvocationInputs): ConditionsVerdict {
    if (this.conditionsCompiled.length === 0) return { matches: true };
    const evaluation = this.kyverno
      ? new Evaluation(kyvernoInput(inputs), this.options(inputs, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS))
      : new Evaluation(celInput(inputs, true), { budget: RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, guard: inputs.guard });
    return evaluateConditions(evaluation, this.conditionsCompiled, this.failurePolicy);
  }

  mutation(index: number, inputs: InvocationInputs): MutationOutcome {
    const m = this.mutations[index];
    if (!m.result.ok) return { ok: false, message: m.result.message };
    const input = this.kyverno ? kyvernoInput(inputs) : celInput(inputs, false);
    const evaluation = new Evaluation(input, this.options(inputs, RUNTIME_CEL_COST_BUDGET));
    const r = evaluation.evaluate(m.result.compiled);
    if (!r.ok) return { ok: false, message: r.message };
    const outcome = this.apply(m, r.value, inputs);
    // Applying is work linear in the object with no tick inside (merging into, converting and encoding a
    // Pod of 200,000 labels: about 0.5 s), so the clock is read after each mutation: a passed deadline
    // stops the review here, not after every later policy has done the same.
    inputs.guard?.check();
    return outcome;
  }

  private apply(m: CompiledMutation, value: CelValue, inputs: InvocationInputs): MutationOutcome {
    const { kind, guard } = inputs;
    // CEL values share subtrees by reference: bound what they would be written out as. The conversion
    // counts what it writes; only a result that embeds a document's subtree as it is (or is over the
    // bound, for the message) is measured again.
    const size: ConvertedSize = { bytes: NaN };
    try {
      if (m.patchType === 'JSONPatch') {
        const ops = toJsonPatchOperations(value, guard, size);
        if (guard && !(size.bytes <= guard.maxValueBytes)) checkJsonSize(ops, guard, 'the JSON patch of a mutation');
        // Kyverno patches unstructured objects; kube-apiserver decodes a built-in kind's result strictly.
        if (this.kyverno) return applyUnstructuredJsonPatch(inputs.object, ops, guard);
        return applyJsonPatchMutation(inputs.object, ops, kind, this.schema, inputs.history, guard);
      }
      const config = toApplyConfiguration(value, guard, size);
      if (guard && !(size.bytes <= guard.maxValueBytes)) checkJsonSize(config, guard, 'the apply configuration of a mutation');
      return applyConfigurationMutation(inputs.object, config, kind, this.schema, inputs.history, !this.kyverno, this.atomics);
    } catch (err) {
      if (err instanceof ConversionError) return { ok: false, message: err.message };
      throw err;
    }
  }
}

/**
 * Whether `a` and `b` hold the same value along `path`: identical at some step (then all below is too), or
 * both absent from maps at the same step. A number counts only inside identical containers: whether it was
 * written `2.0` is marked on its container. Anything else (lists, different scalars) is not known the same.
 */
function sameAlong(a: JsonValue | null | undefined, b: JsonValue | null | undefined, path: readonly string[]): boolean {
  for (let i = 0; ; i++) {
    if (a === b) return typeof a !== 'number';
    if (i === path.length || !isJsonObject(a) || !isJsonObject(b)) return false;
    const k = path[i];
    // Plain reads: a JSON member is never undefined (ownMember tests only reads that could be inherited).
    a = ownMember(a, k);
    b = ownMember(b, k);
  }
}

export function compilePolicy(policy: MutatingAdmissionPolicy, schema: SchemaContext, options: CompileOptions = {}): CompiledPolicy {
  const errors: FieldError[] = [];
  const spec = FieldPath.root('spec');
  const params = policy.paramKind !== undefined;
  const kyverno = options.dialect === 'kyverno';

  const variables = CompiledVariables.compile(policy.variables, kyverno ? { params, dialect: 'kyverno' } : { params });
  variables.entries.forEach((v, i) => {
    if (v.error !== undefined) errors.push(invalid(spec.child('variables').index(i).child('expression'), v.expression, v.error));
  });

  const conditions = policy.matchConditions.map((c, i): CompiledCondition => {
    const result = compileExpression(c.expression, 'matchCondition', kyverno ? variables.scope() : { params });
    if (!result.ok) {
      const message = !kyverno && /\bvariables\b/.test(c.expression)
        ? `${result.message} (matchConditions cannot use variables)`
        : result.message;
      errors.push(invalid(spec.child('matchConditions').index(i).child('expression'), c.expression, message));
    }
    return { name: c.name, result };
  });

  const mutations = policy.mutations.map((m, i): CompiledMutation => {
    const patchType = m.patchType === 'JSONPatch' ? 'JSONPatch' : 'ApplyConfiguration';
    const member = patchType === 'JSONPatch' ? 'jsonPatch' : 'applyConfiguration';
    const expression = (patchType === 'JSONPatch' ? m.jsonPatch?.expression : m.applyConfiguration?.expression) ?? '';
    const result = compileExpression(expression, patchType === 'JSONPatch' ? 'jsonPatch' : 'applyConfiguration', variables.scope());
    if (!result.ok) errors.push(invalid(spec.child('mutations').index(i).child(member, 'expression'), expression, result.message));
    return { patchType, result };
  });

  const audits = (options.auditAnnotations ?? []).map((a, i): CompiledAuditAnnotation => {
    let result = compileExpression(a.valueExpression, 'variable', variables.scope());
    // Kyverno asks for exactly string or null (a dyn result, e.g. a field of `object`, is refused).
    if (result.ok && result.compiled.typeName !== 'string' && result.compiled.typeName !== 'null_type') {
      result = { ok: false, message: 'output is expected to be either of type string or null_type' };
    }
    if (!result.ok) errors.push(invalid(spec.child('auditAnnotations').index(i).child('valueExpression'), a.valueExpression, result.message));
    return { key: a.key, result };
  });

  const atomics = kyverno && options.serverSideApply ? 'merge' : 'refuse';
  return { program: new Program(variables, conditions, mutations, policy.failurePolicy, schema, kyverno, audits, atomics), errors };
}
