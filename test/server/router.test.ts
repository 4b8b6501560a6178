/**
 * The app's router (src/server/router.ts): the cluster routes apart, so that every other route keeps
 * Hono's RegExpRouter, with the same answers, parameters, middleware order and route labels as one
 * router for all.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createApp, fixedPolicySet, statusBody } from '../../src/server/index.js';
import { buildPolicySet } from '../../src/policyset/index.js';
import { SplitRouter } from '../../src/server/router.js';

/** The shapes of the app's routes: a middleware on '*', static routes, and the cluster routes' static and parameter segments side by side. */
function appWith(router?: SplitRouter<never>, { paramFirst = true } = {}) {
  const app = new Hono(router ? { router } : {});
  const seen: string[] = [];
  app.use('*', async (c, next) => {
    seen.push(`mw ${c.req.path}`);
    await next();
    c.header('x-route', c.req.routePath);
  });
  app.post('/mutate', (c) => c.text('mutate'));
  app.all('/mutate', (c) => c.text('405', 405));
  app.get('/healthz', (c) => c.text('ok'));
  app.post('/clusters/:cluster/mutate', (c) => c.text(`cluster ${c.req.param('cluster')}`));
  app.all('/clusters/:cluster/mutate', (c) => c.text('405', 405));
  app.post('/clusters/:cluster/:secret/mutate', (c) => c.text(`cluster ${c.req.param('cluster')} secret ${c.req.param('secret')}`));
  app.get('/clusters/:cluster/readyz', (c) => c.text(`ready ${c.req.param('cluster')}`));
  // A first segment that is a parameter may match on either side (and RegExpRouter takes no parameter beside a static segment).
  if (paramFirst) app.get('/:any/info', (c) => c.text(`info ${c.req.param('any')}`));
  app.notFound((c) => c.text('none', 404));
  return { app, seen };
}

const REQUESTS: [method: string, path: string][] = [
  ['POST', '/mutate'],
  ['GET', '/mutate'],
  ['GET', '/healthz'],
  ['POST', '/healthz'],
  ['POST', '/clusters/prod/mutate'],
  ['PUT', '/clusters/prod/mutate'],
  ['POST', '/clusters/prod/s3cr3t/mutate'],
  ['GET', '/clusters/prod/readyz'],
  ['GET', '/clusters/info'],
  ['GET', '/other/info'],
  ['GET', '/clusters'],
  ['GET', '/clustersx/info'],
  ['GET', '/nowhere'],
];

async function answers(app: Hono): Promise<string[]> {
  const out: string[] = [];
  for (const [method, path] of REQUESTS) {
    const res = await app.fetch(new Request(`http://x${path}`, { method }));
    out.push(`${method} ${path} → ${res.status} ${await res.text()} [${res.headers.get('x-route')}]`);
  }
  return out;
}

describe('SplitRouter', () => {
  it('answers every request as a single router does: handlers, parameters, 404s, route labels, middleware first', async () => {
    const split = appWith(new SplitRouter('clusters'));
    const single = appWith();
    const expected = await answers(single.app);
    expect(await answers(split.app)).toEqual(expected);
    expect(split.seen).toEqual(single.seen);
    expect(expected).toContain('POST /clusters/prod/s3cr3t/mutate → 200 cluster prod secret s3cr3t [/clusters/:cluster/:secret/mutate]');
    expect(expected).toContain('GET /clusters/info → 200 info clusters [/:any/info]');
    expect(expected).toContain('PUT /clusters/prod/mutate → 405 405 [/clusters/:cluster/mutate]');
  });

  it('keeps RegExpRouter for the routes outside the prefix, where one router for all falls back to the trie', async () => {
    const router = new SplitRouter<never>('clusters');
    const split = appWith(router, { paramFirst: false });
    await split.app.fetch(new Request('http://x/mutate', { method: 'POST' }));
    await split.app.fetch(new Request('http://x/clusters/prod/mutate', { method: 'POST' }));
    expect(router.name).toBe('SplitRouter (/clusters: SmartRouter + TrieRouter; others: SmartRouter + RegExpRouter)');
    const single = appWith(undefined, { paramFirst: false });
    await single.app.fetch(new Request('http://x/mutate', { method: 'POST' }));
    expect(single.app.router.name).toBe('SmartRouter + TrieRouter');
  });

  it('is the router of the app, whose cluster routes no longer slow its other routes', async () => {
    const { app } = createApp({ policies: fixedPolicySet(buildPolicySet([]), 'test'), clusters: { get: () => undefined } });
    expect((await app.fetch(new Request('http://x/healthz'))).status).toBe(200);
    const unknown = await app.fetch(new Request('http://x/clusters/nope/readyz'));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual(statusBody(404, 'no cluster named "nope" is served here'));
    expect(app.router.name).toBe('SplitRouter (/clusters: SmartRouter + TrieRouter; others: SmartRouter + RegExpRouter)');
  });
});
