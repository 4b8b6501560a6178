/**
 * `r2://POLICIES/prefix` where POLICIES is bound to a KV namespace (kv_namespaces in wrangler.toml, a
 * slip between two similar blocks): a KV namespace has list() and get() as a bucket has, but its listing
 * holds `keys`, not `objects`. The set never loads either way; its source error used to read
 * `r2://POLICIES/p: u.objects is not iterable` (a minified variable of the bundle), and now says what the
 * binding is not. The built Workers bundle in workerd through miniflare, asked over loopback.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW } from '../reliability/hostile-inputs.js';
import { ensureBuilt, WORKERS_BUNDLE } from './helpers.js';

describe('an r2:// source bound to a KV namespace, on Workers', () => {
  let mf: Miniflare;
  let origin: string;
  beforeAll(async () => {
    ensureBuilt();
    mf = new Miniflare({
      modules: [{ type: 'ESModule', path: WORKERS_BUNDLE, contents: readFileSync(WORKERS_BUNDLE, 'utf8') }],
      modulesRoot: dirname(WORKERS_BUNDLE),
      compatibilityDate: '2025-01-01',
      kvNamespaces: ['POLICIES'],
      bindings: { AMENDER_POLICY_SOURCES: 'r2://POLICIES/p' },
      host: '127.0.0.1',
      port: 0,
      handleRuntimeStdio() {},
    });
    origin = (await mf.ready).origin;
    const kv = (await mf.getKVNamespace('POLICIES')) as unknown as { put(key: string, value: string): Promise<void> };
    await kv.put('p/policy.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
  });
  afterAll(async () => {
    await mf?.dispose();
  });

  it('answers reviews 503, and /readyz says the binding is no R2 bucket', async () => {
    // A review loads the set (a probe does not).
    const review = await fetch(new URL('/mutate', origin), { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } });
    expect(review.status).toBe(503);
    const response = await fetch(new URL('/readyz', origin));
    expect(response.status).toBe(503);
    const body = (await response.json()) as { sourceErrors: string[] };
    expect(body.sourceErrors).toEqual([
      "r2://POLICIES/p: the binding's listing is no R2 listing: is it an R2 bucket (r2_buckets in wrangler.toml), not a KV namespace or another binding? (no policy set is loaded yet)",
    ]);
  });
});
