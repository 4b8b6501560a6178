/**
 * apimachinery's name and label validators (src/k8s/names.ts), once for policy validation, the CEL
 * `format` library and label selectors, the webhook manifest and the cluster registry. There were two
 * copies and two regular expressions: policy validation said "no more than 63 bytes" (Go says
 * "characters") and checked an empty name part against the pattern only when it was not empty (Go
 * reports both), and the webhook manifest took a namespace of any length.
 */
import { describe, expect, it } from 'vitest';
import { CelOptional } from '../../src/cel/index.js';
import { runCli } from '../../src/cli/main.js';
import { isClusterName } from '../../src/clusters/index.js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../src/k8s/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { cel } from '../cel/lib/env.js';
import { fakeIO } from '../cli/fake-io.js';

const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('util/validation', () => {
  it('qualified names: prefix and name parts, each message Go gives', () => {
    expect(isQualifiedName('example.com/MyName')).toEqual([]);
    expect(isQualifiedName('example.com/')).toEqual(['name part must be non-empty', QUALIFIED]);
    expect(isQualifiedName('/a')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('Example.com/a')[0]).toMatch(/^prefix part a lowercase RFC 1123 subdomain/);
    // apimachinery >= 0.35 words the label key and value limits in bytes (api/validate/content MaxLenError).
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 bytes']);
    expect(isQualifiedName(`${'a'.repeat(254)}/b`)).toContain('prefix part must be no more than 253 bytes');
    // apimachinery >= 0.35 (pkg/api/validate/content/kube.go IsLabelKey; util/validation.IsQualifiedName is it).
    expect(isQualifiedName('a/b/c')).toEqual([`a valid label key ${QUALIFIED.slice('name part '.length)} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]);
  });
  it('label values, DNS-1123 labels and subdomains, DNS-1035 labels', () => {
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('my_value.1')).toEqual([]);
    expect(isValidLabelValue('-x')[0]).toMatch(/^a valid label must be an empty string/);
    expect(isValidLabelValue('é'.repeat(32))).toContain('must be no more than 63 bytes'); // 64 UTF-8 bytes
    expect(isDNS1123Label('a'.repeat(64))).toContain('must be no more than 63 characters'); // util/validation's own
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDNS1123Label('a-')[0]).toMatch(/^a lowercase RFC 1123 label/);
    expect(isDNS1123Subdomain('a.b-c.d')).toEqual([]);
    expect(isDNS1123Subdomain('a..b')).toHaveLength(1);
    expect(isDNS1123Subdomain('a.')).toHaveLength(1);
    expect(isDNS1035Label('1a')[0]).toMatch(/^a DNS-1035 label/);
    expect(isDNS1035Label('a1')).toEqual([]);
  });
  it('answers for a megabyte-long near miss (no backtracking pattern)', () => {
    const long = `${'a-'.repeat(500_000)}-`;
    expect(isDNS1123Subdomain(long)).toHaveLength(2);
    expect(isValidLabelValue(long)).toHaveLength(2);
  });
});

describe('the same messages in every user', () => {
  it('policy validation', () => {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: 'p', labels: { 'example.com/': 'x', ok: 'v'.repeat(64) } },
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }],
        reinvocationPolicy: 'Never',
      },
    };
    const messages = buildPolicySet([parseDocuments('p.json', JSON.stringify([policy]))]).problems.map((p) => p.message);
    expect(messages.some((m) => m.includes('name part must be non-empty'))).toBe(true);
    expect(messages.some((m) => m.includes(QUALIFIED))).toBe(true);
    expect(messages.some((m) => m.includes('must be no more than 63 bytes'))).toBe(true);
  });
  it("CEL's format library", () => {
    expect(cel('format.qualifiedName().validate(s)', { s: 'example.com/' })).toEqual(CelOptional.of(['name part must be non-empty', QUALIFIED]));
    expect(cel('format.labelValue().validate(s)', { s: 'v'.repeat(64) })).toEqual(CelOptional.of(['must be no more than 63 bytes']));
  });
  it('the webhook manifest refuses a namespace that is not a DNS-1123 label', async () => {
    const io = fakeIO({});
    const code = await runCli(['webhook-config', '--url', 'https://amender.example.com/mutate', '--exclude-namespace', 'n'.repeat(64)], io);
    expect(code).not.toBe(0);
    expect(io.stderr).toContain('--exclude-namespace');
  });
  it('cluster names are DNS-1123 labels', () => {
    expect(isClusterName('prod-eu-1')).toBe(true);
    expect(isClusterName('Prod')).toBe(false);
    expect(isClusterName('a'.repeat(64))).toBe(false);
  });
});
