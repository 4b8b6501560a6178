/**
 * Kyverno's tests of its check that every `{{ }}` variable is one it knows (variable-tables.json, data
 * transcribed from kyverno/kyverno @ 111e07bbecc6: pkg/validation/policy allowed_vars_test.go,
 * validate_test.go, background_test.go, on_update_policy_test.go; pkg/engine/variables/vars_test.go
 * Test_policyContextValidation). Each Go call is run through compileKyvernoPolicy, with the policy set
 * up so that the call's checks are the ones that apply:
 * - `hasInvalidVariables(p, bg)` and `ValidateVariables(p, bg)`: `spec.background: bg` (Kyverno's
 *   ValidateVariables runs hasInvalidVariables with the policy's background mode, after the background
 *   check, which background false skips);
 * - `ValidateOnPolicyUpdate(p, true)`: `spec.mutateExistingOnPolicyUpdate: true`, `spec.background: false`.
 * `error`: a substring of one of the problems; without it no problem may be about variables (or be a
 * variable that is no JMESPath, which the expression check reports before this check does).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/json/index.js';
import { compileKyvernoPolicy } from '../../../src/kyverno/index.js';
import { AllowedVariables } from '../../../src/kyverno/validation/allowed-variables.js';
import { firstVariableFault } from '../../../src/kyverno/validation/invalid-variables.js';

interface PolicyCase {
  source: string;
  call: 'hasInvalidVariables' | 'ValidateVariables' | 'ValidateOnPolicyUpdate';
  background: boolean;
  error?: string;
  amenderDifference?: string;
  policy: JsonObject;
}

interface Tables {
  policies: PolicyCase[];
  variableFormats: Omit<PolicyCase, 'error'> & { cases: { name: string; input: string; pass: boolean }[] };
  mockContext: { source: string; regex: string | null; patterns: string[]; document: JsonObject; error: boolean }[];
}

const tables = JSON.parse(readFileSync(new URL('./variable-tables.json', import.meta.url), 'utf8')) as Tables;

/** Kyverno's messages, and the expression check's, which reports a variable that is no JMESPath first. */
const ABOUT_VARIABLES = /invalid variables|should not have variables|only select variables|invalid JMESPath/;

/** Every problem and finding of the policy, compiled with the spec the call stands for. */
function messagesOf(c: Pick<PolicyCase, 'call' | 'background' | 'policy'>): string[] {
  const spec = { ...(c.policy.spec as JsonObject) };
  if (c.call === 'ValidateOnPolicyUpdate') Object.assign(spec, { mutateExistingOnPolicyUpdate: true, background: false });
  else spec.background = c.background;
  const result = compileKyvernoPolicy({ ...c.policy, spec });
  return result.ok ? result.findings.map((f) => f.message) : result.problems.map((p) => p.message);
}

describe("Kyverno's policy validation tables for variables", () => {
  for (const c of tables.policies) {
    it(`${c.source}${c.amenderDifference ? ' (Amender differs)' : ''}`, () => {
      const messages = messagesOf(c);
      if (c.error !== undefined) expect(messages.some((m) => m.includes(c.error!)), JSON.stringify(messages)).toBe(true);
      else expect(messages.filter((m) => ABOUT_VARIABLES.test(m))).toEqual([]);
    });
  }

  const formats = tables.variableFormats;
  it(`${formats.source} (${formats.cases.length} cases)`, () => {
    const wrong = formats.cases.filter((f) => {
      const policy = JSON.parse(JSON.stringify(formats.policy).replace('VARIABLE', f.input.replaceAll('"', '\\"'))) as JsonObject;
      const refused = messagesOf({ ...formats, policy }).some((m) => ABOUT_VARIABLES.test(m));
      return refused === f.pass;
    });
    expect(wrong.map((f) => `${f.name}: ${f.input} → ${f.pass ? 'pass' : 'refused'}`)).toEqual([]);
  });

  for (const m of tables.mockContext) {
    it(m.source, () => {
      const allowed = new AllowedVariables(m.regex ?? undefined, [...m.patterns]);
      expect(firstVariableFault(m.document as JsonValue as JsonObject, allowed) !== undefined).toBe(m.error);
    });
  }
});
