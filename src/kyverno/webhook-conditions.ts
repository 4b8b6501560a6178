/**
 * A ClusterPolicy / Policy's `spec.webhookConfiguration.matchConditions`. Kyverno registers such a
 * policy in a webhook of its own that carries these CEL conditions, so the API server calls it only for
 * requests they all hold for (apiserver webhook/generic/webhook.go ShouldCallHook, matchconditions/
 * matcher.go), and Kyverno's engine checks them again (pkg/engine/internal/match.go). Amender serves the
 * whole set from one webhook, so it evaluates them itself before the policy's rules, as the API server's
 * matcher does: any condition false skips the policy; otherwise an error skips it under failurePolicy
 * Ignore and denies the request under Fail.
 *
 * They are compiled as Kyverno's policy validation compiles them (ValidateCustomWebhookMatchConditions:
 * no params, no authorizer), in the admission environment of a MutatingAdmissionPolicy's matchConditions.
 */
import { compileExpression, Evaluation, referencesIdentifier, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS } from '../cel/index.js';
import type { AdmissionRequest } from '../admission/index.js';
import type { ReviewGuard } from '../guard/index.js';
import { getOwn, isJsonObject, type JsonValue } from '../json/index.js';
import { celRequest, evaluateConditions, type CompiledCondition, type ConditionsVerdict } from '../map/index.js';
import type { Report } from './compile-report.js';

/** Kubernetes allows at most 64 matchConditions on a webhook (admissionregistration validation). */
const MAX_CONDITIONS = 64;

export class WebhookConditions {
  private constructor(
    private readonly conditions: readonly CompiledCondition[],
    private readonly failurePolicy: 'Fail' | 'Ignore',
  ) {}

  /** The conditions of `webhook` (the policy's `spec.webhookConfiguration`); undefined when it has none. */
  static compile(webhook: JsonValue | undefined, failurePolicy: 'Fail' | 'Ignore', report: Report): WebhookConditions | undefined {
    const list = isJsonObject(webhook) ? getOwn(webhook, 'matchConditions') : undefined;
    const path = 'spec.webhookConfiguration.matchConditions';
    if (list === undefined || list === null) return undefined;
    if (!Array.isArray(list)) {
      report.error(path, 'must be a list');
      return undefined;
    }
    if (list.length > MAX_CONDITIONS) report.error(path, `must have at most ${MAX_CONDITIONS} items`);
    const conditions: CompiledCondition[] = [];
    const names = new Set<string>();
    list.forEach((entry, i) => {
      const at = `${path}[${i}]`;
      const name = isJsonObject(entry) ? getOwn(entry, 'name') : undefined;
      const expression = isJsonObject(entry) ? getOwn(entry, 'expression') : undefined;
      if (typeof name !== 'string' || name === '') report.error(`${at}.name`, 'is required');
      else if (names.has(name)) report.error(`${at}.name`, `duplicate condition name "${name}"`);
      else names.add(name);
      if (typeof expression !== 'string' || expression === '') {
        report.error(`${at}.expression`, 'is required');
        return;
      }
      const compiled = compileExpression(expression, 'matchCondition', { params: false });
      if (!compiled.ok) report.error(`${at}.expression`, `match conditions compilation errors: ${compiled.message}`);
      else if (referencesIdentifier(expression, 'authorizer')) report.error(`${at}.expression`, "match conditions compilation errors: undeclared reference to 'authorizer' (Kyverno compiles them without an authorizer)");
      else conditions.push({ name: typeof name === 'string' ? name : '', result: compiled });
    });
    return conditions.length > 0 ? new WebhookConditions(conditions, failurePolicy) : undefined;
  }

  /** Whether the policy is called for this request, with `object` as the earlier policies left it. */
  verdict(request: AdmissionRequest, object: JsonValue, guard: ReviewGuard): ConditionsVerdict {
    const evaluation = new Evaluation(
      { object, oldObject: request.oldObject ?? null, request: celRequest(request, request.kind, request.resource), namespaceObject: null },
      { budget: RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, guard },
    );
    return evaluateConditions(evaluation, this.conditions, this.failurePolicy);
  }
}
