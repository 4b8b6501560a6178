/**
 * /readyz, which any caller may read, says where a broken document is (line and column) but does not
 * quote the line: a broken param ConfigMap's line may hold a credential. The set's problems keep the
 * quoted line for the log.
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';
import { labelPolicy } from '../sources/helpers.js';

const SECRET = 'hunter2-SUPERSECRET';
const BROKEN_CONFIGMAP = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: creds, namespace: default}\ndata:\n  token: ${SECRET}: x\n`;

describe('/readyz problems', () => {
  it('name the line and column of a YAML error without quoting the line', async () => {
    const set = buildPolicySet([parseDocuments('memory://policy.yaml', labelPolicy('p', 'team', 'a')), parseDocuments('memory://creds.yaml', BROKEN_CONFIGMAP)]);
    const logged = set.problems.find((p) => p.source === 'memory://creds.yaml')!;
    expect(logged.message).toContain(SECRET);
    const { app } = createApp({ policies: fixedPolicySet(set, 'memory://') });
    const res = await app.fetch(new Request('https://amender.test/readyz'));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    const shown = (JSON.parse(text) as { problems: { source: string; message: string }[] }).problems.find((p) => p.source === 'memory://creds.yaml')!;
    expect(shown.message).toMatch(/^invalid YAML: .* at line \d+, column \d+$/s);
  });
});
