/**
 * A Worker's settings as wrangler.toml gives them: vars written as TOML strings arrive as strings, but
 * unquoted numbers and booleans (`AMENDER_REFRESH_SECONDS = 30`) and lists arrive as JSON values, and a
 * misspelt name is read by no setting. Through the built bundle in workerd (miniflare binds its `bindings` as
 * wrangler binds `[vars]`: strings as text, anything else as JSON).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { S3_ENVIRONMENT_VARIABLES } from '../../src/sources/node/s3-client.js';
import { LAMBDA_S3_VARIABLES } from '../../src/adapters/lambda-sources.js';
import { waitFor } from '../node/bundle.js';
import { ensureBuilt, httpCases } from './helpers.js';
import { startWorker } from './workers.js';

beforeAll(() => ensureBuilt());

describe('Workers bundle settings', () => {
  it("logs an AMENDER_ var that no setting reads (a typo) once per isolate, with the nearest name, and serves all the same", async () => {
    const worker = await startWorker({ AMENDER_REFERSH_SECONDS: '5', AMENDER_S3_ENDPOINT: 'http://127.0.0.1:9' });
    try {
      for (let i = 0; i < 2; i++) expect((await fetch(new URL('/healthz', worker.origin))).status).toBe(200);
      await waitFor('the unknown setting lines', () => worker.logs.filter((l) => l.msg === 'unknown setting').length >= 2);
      expect(worker.logs.filter((l) => l.msg === 'unknown setting').map((l) => l.warning)).toEqual([
        'AMENDER_REFERSH_SECONDS is set but is no setting of this server: ignored (did you mean AMENDER_REFRESH_SECONDS?)',
        // S3 is read on Lambda and the Node server, not in a Worker.
        'AMENDER_S3_ENDPOINT is set but is no setting of this server: ignored',
      ]);
    } finally {
      await worker.dispose();
    }
  });
});

describe('Workers bundle settings written unquoted in wrangler.toml', () => {
  const review = (note: string) => {
    const [sample] = httpCases();
    const body = JSON.parse(sample.body!) as { request: { object: { metadata: { annotations?: Record<string, string> } } } };
    body.request.object.metadata.annotations = { note };
    return JSON.stringify(body);
  };

  it('reads a number as written (AMENDER_MAX_BODY_BYTES = 4000: a larger review is 413)', async () => {
    const worker = await startWorker({ AMENDER_MAX_BODY_BYTES: 4000, AMENDER_REFRESH_SECONDS: 0 });
    try {
      const over = await fetch(new URL('/mutate', worker.origin), { method: 'POST', body: review('x'.repeat(5000)), headers: { 'content-type': 'application/json' } });
      expect(over.status).toBe(413);
      expect(((await over.json()) as { message: string }).message).toMatch(/exceeds the limit of 4000 bytes/);
      const within = await fetch(new URL('/mutate', worker.origin), { method: 'POST', body: review('x'), headers: { 'content-type': 'application/json' } });
      expect(within.status).toBe(200);
    } finally {
      await worker.dispose();
    }
  });

  it('refuses a JSON list where text is read, naming the var, instead of leaving it at its default', async () => {
    const worker = await startWorker({ AMENDER_POLICY_SOURCES: ['bundled', 'r2://POLICIES/x'] });
    try {
      const response = await fetch(new URL('/healthz', worker.origin));
      expect(response.status).toBe(500);
      await waitFor('the invalid configuration line', () => worker.logs.some((l) => l.msg === 'invalid configuration'));
      expect(worker.logs.find((l) => l.msg === 'invalid configuration')?.error).toBe(
        'invalid configuration:\n  AMENDER_POLICY_SOURCES: expected text (a var in quotes, as in AMENDER_POLICY_SOURCES = "..."), got a JSON list',
      );
    } finally {
      await worker.dispose();
    }
  });
});

describe('the variables Lambda knows without loading the S3 client', () => {
  it('are the S3 client’s', () => {
    expect([...LAMBDA_S3_VARIABLES]).toEqual([...S3_ENVIRONMENT_VARIABLES]);
  });
});
