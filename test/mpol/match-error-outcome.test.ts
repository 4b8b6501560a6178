/**
 * A MutatingPolicy whose matching fails (a selector that does not parse, read once its resource rules
 * match) is a failed MutatingPolicy: Kyverno records a rule error for it (pkg/cel/policies/mpol/engine
 * engine.go handlePolicy: RuleError "failed to execute matching"), which its CLI reports as `error`. Its
 * outcome must name the engine MutatingPolicy and the policy's kind, as every other outcome of it does;
 * it named MutatingAdmissionPolicy, so `amender test` left the error out and reported the policy as not
 * matched (an "Excluded" pass), and logs and metrics counted it under the other engine.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import { runCli } from '../../src/cli/main.js';
import { evaluate } from '../../src/engine/index.js';
import { capturedCliIO } from '../fixtures/kyverno-library.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

const POLICY = `apiVersion: policies.kyverno.io/v1
kind: NamespacedMutatingPolicy
metadata: {name: bad-selector, namespace: shop}
spec:
  failurePolicy: Ignore
  matchConstraints:
    objectSelector:
      matchExpressions: [{key: tier, operator: Bogus, values: [web]}]
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"seen": "true"}}}'
`;

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'shop' } };

describe('MutatingPolicy: an error while matching', () => {
  it('is an outcome of the MutatingPolicy engine, with the policy kind', async () => {
    const set = policySetFrom(POLICY);
    const result = await evaluate(set, reviewOf(CONFIGMAP).request as unknown as AdmissionRequest);
    expect(result.allowed).toBe(true);
    expect(result.outcomes).toHaveLength(1);
    expect(result.outcomes[0]).toMatchObject({ engine: 'MutatingPolicy', policyKind: 'NamespacedMutatingPolicy', policy: 'shop/bad-selector', result: 'error', ignored: true });
    expect(result.outcomes[0].detail).toContain('"Bogus" is not a valid label selector operator');
  });

  const dir = mkdtempSync(join(tmpdir(), 'amender-mpol-match-error-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is an error result in amender test, as in the Kyverno CLI', async () => {
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(join(dir, 'resource.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: shop}\n');
    writeFileSync(
      join(dir, 'kyverno-test.yaml'),
      `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: match-error}
policies: [policy.yaml]
resources: [resource.yaml]
results:
- isMutatingPolicy: true
  kind: ConfigMap
  policy: bad-selector
  resources: [shop/app]
  result: error
`,
    );
    const c = capturedCliIO();
    const code = await runCli(['test', dir], c.io);
    // Checked, not excluded: a result the Kyverno CLI does not give fails.
    expect(c.out()).toMatch(/│ bad-selector │ +│ v1\/ConfigMap\/shop\/app │ Pass +│ Ok +│/);
    expect(c.out()).toMatch(/Test Summary: 1 tests passed and 0 tests failed/);
    expect(code).toBe(0);
  });
});
