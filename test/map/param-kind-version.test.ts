/**
 * A paramKind names a version; kube-apiserver resolves it with its REST mapper (generic/policy_source.go
 * ensureParamsForPolicyLocked: restMapper.RESTMapping(group/kind, version)), which knows only the versions
 * the kind's CRD serves. A version the CRD does not serve (absent, or `served: false`) is the policy's
 * configuration error "failed to find resource referenced by paramKind", which the binding's
 * failurePolicy decides (a denial under Fail, the policy skipped under Ignore).
 */
import { describe, expect, it } from 'vitest';
import { addedAt, EMPTY_WIDGET_REVIEW, limitsWithParam, mutateWidget, widgetParamPolicy } from './widget-reviews.js';

function set(paramVersion: string, failurePolicy: 'Fail' | 'Ignore'): string {
  return `${limitsWithParam(false)}
${widgetParamPolicy({ paramKind: `apiVersion: ${paramVersion}, kind: Limit`, paramRef: '{ name: l, parameterNotFoundAction: Deny }', annotations: `"tier": string(params.spec.tier)`, failurePolicy })}`;
}

const REVIEW = EMPTY_WIDGET_REVIEW;

describe('a paramKind version', () => {
  it('that the CRD serves reads its params', async () => {
    const reply = await mutateWidget(set('example.com/v1', 'Fail'), REVIEW);
    expect(reply.status?.message).toBeUndefined();
    expect(addedAt(reply, '/metadata/annotations')).toEqual({ tier: 'gold' });
  });

  it.each(['v1alpha1', 'v2'])("that the CRD does not serve (%s) is a configuration error; failurePolicy Fail denies", async (version) => {
    const reply = await mutateWidget(set(`example.com/${version}`, 'Fail'), REVIEW);
    expect(reply.allowed).toBe(false);
    expect(reply.status?.message).toBe(
      `policy "p" denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/${version}, Kind=Limit'`,
    );
  });

  it('that the CRD does not serve is skipped under failurePolicy Ignore', async () => {
    const reply = await mutateWidget(set('example.com/v1alpha1', 'Ignore'), REVIEW);
    expect(reply.allowed).toBe(true);
    expect(reply.patch).toBeUndefined();
  });
});
