/**
 * JMESPath `parse_yaml` in a ClusterPolicy rule, through answerReview: Kyverno's jpParseYAML calls
 * sigs.k8s.io/yaml's YAMLToJSON, which decodes with go-yaml v2's Unmarshal: of a multi-document stream
 * the first document is read and the rest is never decoded nor checked (Kyverno's Test_ParseYAML: a text
 * opening with `---` reads the document after it). As the CEL yaml.parse of the Kyverno dialect.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/json/index.js';
import { answerReview } from '../../../src/server/index.js';
import { policySetFrom, reviewOf } from '../../server/helpers.js';

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: read-config}
spec:
  rules:
  - name: copy
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            parsed: "{{ to_string(parse_yaml(request.object.data.cfg)) }}"
`;

async function annotationFor(cfg: string): Promise<{ allowed: boolean; parsed?: string; message?: string }> {
  const set = policySetFrom(POLICY);
  expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { cfg } };
  const answer = await answerReview(reviewOf(object) as JsonValue, set);
  const response = (answer.body as { response: { allowed: boolean; patch?: string; status?: { message?: string } } }).response;
  if (!response.allowed || !response.patch) return { allowed: response.allowed, message: response.status?.message };
  const patch = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as { path: string; value: { parsed: string } }[];
  return { allowed: true, parsed: patch.find((op) => op.path === '/metadata/annotations')?.value.parsed };
}

describe('parse_yaml of a multi-document stream in a ClusterPolicy rule', () => {
  it('reads the first document and leaves the rest unread, even when it would not parse', async () => {
    expect(await annotationFor('a: 1\n---\nb: 2\n')).toEqual({ allowed: true, parsed: '{"a":1}' });
    expect(await annotationFor('a: 1\n---\n[not: yaml\n')).toEqual({ allowed: true, parsed: '{"a":1}' });
    expect(await annotationFor('---\nfoo: ~\nbar: null\n')).toEqual({ allowed: true, parsed: '{"bar":null,"foo":null}' });
  });

  it('still fails the rule for a first document that does not parse', async () => {
    const r = await annotationFor('[not: yaml\n---\na: 1\n');
    expect(r.parsed).toBeUndefined();
    expect(r.allowed).toBe(false);
    expect(r.message).toContain('rule copy failed: variable substitution failed: failed to resolve to_string(parse_yaml(request.object.data.cfg))');
  });

  it('says where the first error is in a text that is errors throughout, in time linear in its length', async () => {
    // 98,000 `"`: 49,000 errors, just within the values a review may read (AMENDER_MAX_VALUE_BYTES / 128).
    // Locating each by counting the lines before it was quadratic (2.7 s for 160,000); now the first
    // error's place is found in one pass.
    const r = await annotationFor(`${'"'.repeat(98_000)}!`);
    expect(r.allowed).toBe(false);
    expect(r.message).toContain('rule copy failed: variable substitution failed: failed to resolve to_string(parse_yaml(request.object.data.cfg))');
    expect(r.message).toContain(`Unexpected double-quoted-scalar at node end at line 1, column 3:\n\n${'"'.repeat(79)}…\n  ^\n`);
    // 300,000 of them are more values than a review may read: refused before they are composed.
    const over = await annotationFor(`${'"'.repeat(600_000)}!`);
    expect(over.message).toContain('the YAML text holds more than 49152 values');
  });
});
