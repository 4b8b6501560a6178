/**
 * A param object of a custom resource kind is read as the API server stores and serves it: defaulted by
 * its CRD's schema (apiextensions-apiserver schema/defaulting/algorithm.go, run by the CRD handler's codec
 * on every decode, so the param informer's objects carry the defaults). A param written in the policy
 * sources without a defaulted field reads that field's default, as it would in the cluster.
 */
import { describe, expect, it } from 'vitest';
import { addedAt, EMPTY_WIDGET_REVIEW, exampleCrd, mutateWidget, widgetParamPolicy } from './widget-reviews.js';

const SET = exampleCrd('Limit', 'limits', `
              maxReplicas: { type: integer, default: 5 }
              tier: { type: string, default: bronze }`) + `
apiVersion: example.com/v1
kind: Limit
metadata: { name: l, namespace: default }
spec: { tier: gold }
---
${widgetParamPolicy({ paramKind: `apiVersion: example.com/v1, kind: Limit`, paramRef: '{ name: l, parameterNotFoundAction: Deny }', annotations: `"max": string(params.spec.?maxReplicas.orValue(-1)), "tier": string(params.spec.tier)` })}`;

const REVIEW = EMPTY_WIDGET_REVIEW;

describe('a param object of a custom resource kind', () => {
  it("is read with its CRD's defaults; what it sets stays", async () => {
    const reply = await mutateWidget(SET, REVIEW);
    expect(reply.status?.message).toBeUndefined();
    expect(addedAt(reply, '/metadata/annotations')).toEqual({ max: '5', tier: 'gold' });
  });

  it('is defaulted whichever order the CRD and the param come in', async () => {
    const docs = SET.split('\n---\n');
    const reordered = [docs[1], docs[0], ...docs.slice(2)].join('\n---\n');
    const reply = await mutateWidget(reordered, REVIEW);
    expect(addedAt(reply, '/metadata/annotations')).toEqual({ max: '5', tier: 'gold' });
  });
});
