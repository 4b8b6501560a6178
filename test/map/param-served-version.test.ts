/**
 * A custom resource param is read at the paramKind's version: kube-apiserver lists the kind at that
 * version (generic/policy_source.go: the informer of restMapper.RESTMapping(group/kind, version).Resource),
 * and the CRD handler converts every object it serves to the version asked for, setting its apiVersion
 * (apiextensions-apiserver conversion/nop_converter.go for strategy None; a webhook's answer must carry
 * it too). So a param written as example.com/v1 reads apiVersion example.com/v2 under paramKind v2.
 */
import { describe, expect, it } from 'vitest';
import { addedAt, EMPTY_WIDGET_REVIEW, limitsWithParam, mutateWidget, widgetParamPolicy } from './widget-reviews.js';

function set(paramKindVersion: string, written: string): string {
  return `${limitsWithParam(true, written)}
${widgetParamPolicy({ paramKind: `apiVersion: example.com/${paramKindVersion}, kind: Limit`, paramRef: '{ selector: {}, parameterNotFoundAction: Deny }', annotations: `"apiVersion": params.apiVersion, "kind": params.kind, "tier": params.spec.tier` })}`;
}

const REVIEW = EMPTY_WIDGET_REVIEW;

describe('a custom resource param', () => {
  it.each([
    ['v2', 'v1'],
    ['v1', 'v2'],
    ['v1', 'v1'],
  ])('under paramKind %s, written as %s, reads the paramKind version', async (paramKindVersion, written) => {
    const reply = await mutateWidget(set(paramKindVersion, written), REVIEW);
    expect(reply.status?.message).toBeUndefined();
    expect(addedAt(reply, '/metadata/annotations')).toEqual({ apiVersion: `example.com/${paramKindVersion}`, kind: 'Limit', tier: 'gold' });
  });
});
