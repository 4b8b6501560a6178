/**
 * A label selector that skipped validation (a Kyverno MutatingPolicy's: Kyverno's CRD does not check its
 * selectors) fails when a request needs it, with the text of apimachinery's LabelSelectorAsSelector:
 * labels.NewRequirement's field errors (pkg/labels/selector.go), formatted by field.Error (a []string
 * value as its JSON, a nil one as null; a string %q) under the path NewRequirement gives them: `key`,
 * `values`, and `values[i][key]` for a bad value (validateLabelValue's path.Key(k)). The matcher wraps it as
 * an internal error (predicates/namespace/matcher.go).
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';

function policySet(expressions: string): ReturnType<typeof buildPolicySet> {
  const text = `
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: { name: bad }
spec:
  matchConstraints:
    resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps] }]
    namespaceSelector:
      matchExpressions: ${expressions}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' }
---
apiVersion: v1
kind: Namespace
metadata: { name: default }
`;
  return buildPolicySet([parseDocuments('p.yaml', text)]);
}

async function denial(expressions: string): Promise<string> {
  const request = {
    uid: 'u',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    namespace: 'default',
    name: 'c',
    operation: 'CREATE' as const,
    userInfo: {},
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } },
    oldObject: null,
  };
  const r = await evaluate(policySet(expressions), request);
  expect(r.allowed).toBe(false);
  return r.allowed ? '' : r.status.message;
}

const PREFIX = 'policy "bad" denied request: failed to configure policy: Internal error occurred: ';

describe("a selector that skipped validation fails with LabelSelectorAsSelector's text", () => {
  it('In without values: the nil values list is null', async () => {
    expect(await denial('[{ key: a, operator: In }]')).toBe(`${PREFIX}values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty`);
    expect(await denial('[{ key: a, operator: NotIn, values: [] }]')).toBe(`${PREFIX}values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty`);
  });

  it('Exists with values: the values as JSON, and each bad value under values[i][key]', async () => {
    expect(await denial('[{ key: b, operator: Exists, values: [x, "y z"] }]')).toBe(
      `${PREFIX}[values: Invalid value: ["x","y z"]: values set must be empty for exists and does not exist, ` +
        `values[1][b]: Invalid value: "y z": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', ` +
        `and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]`,
    );
  });

  it('a bad key is quoted as Go quotes it', async () => {
    const message = await denial('[{ key: "a\\ab", operator: Exists }]'); // a BEL character, which Go's %q writes as \a
    expect(message.startsWith(`${PREFIX}key: Invalid value: "a\\ab": name part must consist of`)).toBe(true);
  });
});
