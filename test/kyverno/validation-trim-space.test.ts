/**
 * Policy validation reads variables as the runtime does: Kyverno's replaceBracesAndTrimSpaces
 * (pkg/engine/variables/vars.go) and MockContext.Query (pkg/engine/context/mock_context.go) trim with Go's
 * strings.TrimSpace, where U+0085 (NEL) is a space and U+FEFF (BOM) is not, unlike JavaScript's trim().
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';

function policy(value: string): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p' },
    spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels: { x: value } } } } }] },
  };
}

/** The variable problems of a policy with label x set to `value`. */
function variableProblems(value: string): string[] {
  const r = compileKyvernoPolicy(policy(value));
  const all = r.ok ? r.findings : r.problems;
  return all.filter((f) => /invalid variables/.test(f.message)).map((f) => f.message);
}

describe("policy validation trims variables with Go's TrimSpace", () => {
  it('U+0085 around a variable is a space: the policy is valid', () => {
    expect(variableProblems('{{ request.object.metadata.name\u0085}}')).toEqual([]);
    expect(variableProblems('a-{{\u0085- request.object.metadata.name }}')).toEqual([]);
  });
  it('U+FEFF is no space: the query does not compile, the first variable Kyverno refuses', () => {
    const doc = policy('{{\uFEFFrequest.object.metadata.name}}');
    (doc.spec as { rules: { mutate: { patchStrategicMerge: { metadata: { labels: JsonObject } } } }[] }).rules[0].mutate.patchStrategicMerge.metadata.labels.y = '{{ team }}';
    const r = compileKyvernoPolicy(doc);
    expect(r.ok).toBe(true); // an expression finding: the policy set refuses it, a direct compile runs it
    const findings = r.ok ? r.findings : [];
    // Kyverno stops at the first refused variable: the unknown `team` after it is not reported.
    expect(findings.map((f) => `${f.kind}: ${f.message}`)).toEqual([
      "expression: variable {{\uFEFFrequest.object.metadata.name}}: invalid JMESPath expression \"\uFEFFrequest.object.metadata.name\": SyntaxError: Unknown char: '\\ufeff'",
    ]);
  });
});
