/**
 * The module runs unchanged in workerd: bundled for the browser platform (a `node:*` import would fail
 * the build), evaluated in miniflare, and compared with the same expressions evaluated in Node.
 */
import { Miniflare } from 'miniflare';
import { readFileSync } from 'node:fs';
import { bundleForWorkerd } from '../../fixtures/workerd.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/json/index.js';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';

let mf: Miniflare;

beforeAll(async () => {
  const script = await bundleForWorkerd(new URL('./workerd-worker.ts', import.meta.url));
  mf = new Miniflare({ modules: true, script, compatibilityDate: '2025-01-01' });
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

const pem = readFileSync(new URL('./x509/kyverno-svc.pem', import.meta.url), 'utf8');
const CASES: { expr: string; data: JsonValue }[] = [
  { expr: "request.object.metadata.labels.app || ''", data: { request: { object: { metadata: { labels: {} } } } } },
  { expr: 'request.object.metadata.labels.app', data: { request: { object: { metadata: { labels: {} } } } } },
  { expr: "regex_replace_all('(a)(b)', 'xaby', '${2}$1')", data: {} },
  { expr: "parse_yaml('a: yes\nb: [1, 2]')", data: {} },
  { expr: "sha256('abc')", data: {} },
  { expr: "add('100Mi', '28Mi')", data: {} },
  { expr: "time_add(time_now_utc(), '90m')", data: {} },
  { expr: "time_parse('Mon Jan 02 15:04:05 MST 2006', 'Sat Jan 02 15:04:05 MST 2021')", data: {} },
  { expr: 'x509_decode(@).Subject.CommonName', data: pem },
  { expr: "random('[a-z]{8}')", data: {} },
  { expr: "semver_compare('1.2.3', '>=1.2.0 <2.0.0')", data: {} },
  { expr: "image_normalize('nginx')", data: {} },
  { expr: 'to_string(@)', data: { b: '<&>', a: [1.5, null] } },
  { expr: 'length(@', data: {} },
];

describe('JMESPath in workerd', () => {
  it('gives the same answers as in Node', async () => {
    const res = await mf.dispatchFetch('http://worker.test/', { method: 'POST', body: JSON.stringify({ cases: CASES }) });
    const { results } = (await res.json()) as { results: unknown[] };
    const expected = CASES.map(({ expr, data }) => {
      const r = evaluate(expr, data, { now: () => Date.UTC(2024, 0, 1), random: () => 0.25 });
      return r.ok ? { value: r.value } : { error: r.error.message, kind: r.error.kind };
    });
    expect(results).toEqual(expected);
    expect(results[8]).toEqual({ value: '*.kyverno.svc' });
    expect(results[1]).toEqual({ error: 'Unknown key "app" in path', kind: 'unresolved' });
  });
});
