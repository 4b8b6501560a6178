/**
 * AMENDER_BASE_PATH (Lambda): behind a custom domain with an API mapping, API Gateway leaves the mapping's
 * base path in the path it hands the function (`path` of a REST API event, `rawPath` of an HTTP API's),
 * where the API's own endpoint does not. The built bundle in a fresh process serves the prefixed paths
 * as the plain ones, still serves the plain ones, and refuses a malformed base path at init.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, httpCases } from './helpers.js';
import { httpApiEvent, restApiEvent, resultReply, startLambda, type LambdaProcess } from './lambda.js';

const CUSTOM_DOMAIN = 'hooks.example.com';
const [review] = httpCases();

/** A REST API event through a custom domain whose mapping `basePath` points at stage `prod`. */
function restThroughDomain(path: string, basePath: string): Record<string, unknown> {
  const event = restApiEvent({ ...review, path }, false);
  const context = event.requestContext as Record<string, unknown>;
  return {
    ...event,
    path: `${basePath}${path}`,
    headers: { ...(event.headers as object), Host: CUSTOM_DOMAIN },
    requestContext: { ...context, domainName: CUSTOM_DOMAIN, domainPrefix: 'hooks', path: `${basePath}${path}` },
  };
}

/** An HTTP API event ($default stage) through a custom domain whose API mapping key is `basePath`. */
function httpApiThroughDomain(path: string, basePath: string): Record<string, unknown> {
  const event = httpApiEvent({ ...review, path }, '$default', false);
  const context = event.requestContext as { http: Record<string, unknown> } & Record<string, unknown>;
  return {
    ...event,
    rawPath: `${basePath}${path}`,
    headers: { ...(event.headers as object), host: CUSTOM_DOMAIN },
    requestContext: { ...context, domainName: CUSTOM_DOMAIN, domainPrefix: 'hooks', http: { ...context.http, path: `${basePath}${path}` } },
  };
}

beforeAll(() => ensureBuilt());

describe('Lambda bundle with AMENDER_BASE_PATH', () => {
  let lambda: LambdaProcess;
  beforeAll(async () => {
    lambda = await startLambda({ AMENDER_BASE_PATH: '/amender' });
  });
  afterAll(async () => {
    await lambda?.stop();
  });

  it('answers a review through the custom domain as through the API\'s own endpoint, in both payload formats', async () => {
    const direct = resultReply(await lambda.invoke(restApiEvent(review, false)));
    expect(direct.status).toBe(200);
    expect((direct.body as { response?: { patch?: string } }).response?.patch).toBeTruthy();
    for (const event of [restThroughDomain('/mutate', '/amender'), httpApiThroughDomain('/mutate', '/amender'), httpApiEvent(review, '$default', false)]) {
      expect(resultReply(await lambda.invoke(event))).toEqual(direct);
    }
  });

  it('takes off only the whole base path: a longer first segment is another path (404), the base path alone is the root', async () => {
    expect((await lambda.invoke(restThroughDomain('/mutate', '/amenders'))).statusCode).toBe(404);
    const probe = { name: 'healthz', method: 'GET' as const, path: '/healthz' };
    const healthz = httpApiEvent(probe, '$default', false);
    expect((await lambda.invoke({ ...healthz, rawPath: '/amender/healthz' })).statusCode).toBe(200);
    expect((await lambda.invoke({ ...healthz, rawPath: '/amender' })).statusCode).toBe(404);
  });
});

describe('Lambda bundle without AMENDER_BASE_PATH', () => {
  it('routes the path as given: the custom domain\'s base path is an unknown route', async () => {
    const lambda = await startLambda({});
    try {
      expect((await lambda.invoke(restThroughDomain('/mutate', '/amender'))).statusCode).toBe(404);
      expect((await lambda.invoke(restApiEvent(review, false))).statusCode).toBe(200);
    } finally {
      await lambda.stop();
    }
  });

  it('fails the init on a base path that is not one, naming the variable', async () => {
    for (const bad of ['amender', '/amender/', '/a/../b', '/a%2Fb', '/a?b', '/']) {
      await expect(startLambda({ AMENDER_BASE_PATH: bad }), bad).rejects.toThrow(`AMENDER_BASE_PATH: expected a path prefix such as /amender`);
    }
  });
});
