/**
 * Condition anchors read their pattern and their key with Go's spaces. pkg/engine/pattern/pattern.go
 * validateStringPatterns trims each `|` alternative and `&` condition of ASCII spaces only
 * (strings.Trim(c, " ")), takes the operator from what is left, and trims the operand with
 * strings.TrimSpace (unicode.IsSpace: U+0085 is a space, U+FEFF is not); anchor.Parse
 * (pkg/engine/anchor/anchor.go) trims a key with strings.TrimSpace. JavaScript's trim() differs on each.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

/** Whether the overlay `{metadata: {labels: {[key]: pattern, added: 'yes'}}}` applied to a Pod labelled v=value. */
async function applies(key: string, pattern: string, value: string): Promise<boolean> {
  const overlay: JsonObject = { metadata: { labels: { [key]: pattern, added: 'yes' } } };
  const policy = compiled(clusterPolicy('p', [{ name: 'r', mutate: { patchStrategicMerge: overlay } }]));
  const object = pod('web', ['a']);
  (object.metadata as JsonObject).labels = { v: value };
  const result = await runKyvernoPolicies([policy], { request: podRequest(object) });
  const status = result.policies[0].rules[0].status;
  if (status !== 'applied' && status !== 'skipped') throw new Error(`rule ${status}: ${result.policies[0].rules[0].message}`);
  return status === 'applied';
}

describe("condition patterns and anchor keys with Go's spaces", () => {
  it('a tab before an operator leaves no operator: the pattern is the text ">1"', async () => {
    expect(await applies('(v)', '\t>1', '2')).toBe(false);
    expect(await applies('(v)', '\t>1', '>1')).toBe(true);
    expect(await applies('(v)', ' >1', '2')).toBe(true); // ASCII spaces are trimmed before the operator
    expect(await applies('(v)', 'x |\u00a0>1', '2')).toBe(false);
  });
  it('the operand is trimmed of U+0085, not of U+FEFF', async () => {
    expect(await applies('(v)', '!x\u0085', 'y')).toBe(true);
    expect(await applies('(v)', 'web*\u0085', 'web1')).toBe(true);
    expect(await applies('(v)', '\ufeff*', 'web1')).toBe(false);
  });
  it('an anchor key is trimmed of U+0085, not of U+FEFF', async () => {
    // '(v)<NEL>' is the condition (v): the Pod's v is not 'no', so the overlay does not apply.
    expect(await applies('(v)\u0085', 'no', 'yes')).toBe(false);
    // '<BOM>(v)' is no anchor but a label to add.
    expect(await applies('\ufeff(v)', 'no', 'yes')).toBe(true);
  });
});
