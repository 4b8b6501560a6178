/**
 * The pipeline for one admission request: the MutatingAdmissionPolicy invocations of the set in order
 * (src/map), then the Kyverno policies, each step working on the object the previous one produced;
 * the reply patch is the diff from the received object to the final one.
 */
import type { AdmissionRequest } from '../admission/types.js';
import { jsonEqual, type JsonObject, type JsonValue } from '../json/index.js';
import { createPatch } from '../jsonpatch/index.js';
import { dispatch } from '../map/dispatch.js';
import { NO_EQUIVALENTS } from '../map/equivalence.js';
import { internalError } from '../map/errors.js';
import type { PolicySet } from '../policyset/index.js';
import { runKyvernoStep } from './kyverno-step.js';
import { denialStatus } from './status.js';
import type { EngineOptions, EngineResult, PolicyOutcome } from './types.js';

function namespaceLookup(set: PolicySet, options: EngineOptions): (name: string) => JsonObject | undefined {
  const fallback = options.namespaceLookup;
  return fallback ? (name) => set.objects.namespace(name) ?? fallback(name) : (name) => set.objects.namespace(name);
}

async function evaluateUnsafe(set: PolicySet, request: AdmissionRequest, options: EngineOptions): Promise<EngineResult> {
  const received: JsonValue | null = request.object ?? null;
  const outcomes: PolicyOutcome[] = [];
  const warnings: string[] = [];
  const namespaces = namespaceLookup(set, options);
  const mapResult = dispatch(set.mutatingPolicies, request, {
    params: set.objects,
    namespaces,
    equivalence: NO_EQUIVALENTS,
    reinvocation: options.reinvocation ?? true,
  });
  for (const t of mapResult.traces) outcomes.push({ engine: 'MutatingAdmissionPolicy', ...t });
  const none = {};
  if (mapResult.abort) return { allowed: false, status: mapResult.abort.status, outcomes, warnings, auditAnnotations: none };
  if (mapResult.errors.length > 0) return { allowed: false, status: denialStatus(mapResult.errors, request), outcomes, warnings, auditAnnotations: none };
  const kyverno = await runKyvernoStep(set, request, mapResult.object, namespaces);
  outcomes.push(...kyverno.outcomes);
  const { auditAnnotations } = kyverno;
  if (kyverno.denial) return { allowed: false, status: kyverno.denial, outcomes, warnings, auditAnnotations };
  const final = kyverno.object;
  const patch = received === null || final === null || received === final || jsonEqual(received, final) ? [] : createPatch(received, final);
  return { allowed: true, object: final, patch, outcomes, warnings, auditAnnotations };
}

/**
 * Evaluates one request. Never rejects: an unexpected failure inside the engine is answered with a 500
 * InternalError status, as the API server answers its own internal errors.
 */
export async function evaluate(set: PolicySet, request: AdmissionRequest, options: EngineOptions = {}): Promise<EngineResult> {
  try {
    return await evaluateUnsafe(set, request, options);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { allowed: false, status: internalError(`amender engine: ${message}`).status, outcomes: [], warnings: [], auditAnnotations: {} };
  }
}
