/**
 * An API Gateway HTTP API hands Lambda the request's path percent-decoded (payload 2.0's `rawPath`, 1.0's
 * `path`), where a Function URL, a REST API and a load balancer hand it over as sent: a client's
 * `/capture/hash%23value` arrives as `/capture/hash#value` (captures of live AWS endpoints published with
 * hotsock/voker, vokerhttp/testdata/ingress-paths.json). A cluster's path secret holding `#` or a backslash,
 * sent percent-encoded as it must be, then reached the app cut at the `#` (the rest of the path and the
 * query taken for a fragment) or with the backslash read as `/`: 404 'no route', where the Node server and
 * a Function URL serve it. The handler (the one dist/lambda runs) is fed HTTP API events as AWS builds them.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAwsLambdaHandler } from '../../src/adapters/aws-lambda.js';
import type { LambdaHandler } from '../../src/adapters/lambda-handler.js';
import { hashSecret } from '../../src/clusters/index.js';
import { httpCases, ROOT } from './helpers.js';
import { functionUrlEvent, httpApiEvent, resultReply, restApiEvent } from './lambda.js';

/** A secret such as a password manager makes, with characters a URL path must carry percent-encoded. */
const SECRET = 'k9#Vq7\\Lp2_x-Zr8wT4mN6bY1cF3hJ5s';
const review = httpCases()[1];
const encoded = `/clusters/edge/${encodeURIComponent(SECRET)}/mutate`;
/** What an HTTP API hands over for `encoded`. */
const decoded = `/clusters/edge/${SECRET}/mutate`;

/** An HTTP API event on `stage` whose path is `path` as AWS gives it (decoded), with the API server's ?timeout=. */
function httpApiDecoded(path: string, stage: string): Record<string, unknown> {
  const event = httpApiEvent({ ...review, path: `${encoded}?timeout=10s` }, stage, false) as { rawPath: string; requestContext: { http: { path: string } } };
  const prefixed = stage === '$default' ? path : `/${stage}${path}`;
  return { ...event, rawPath: prefixed, requestContext: { ...event.requestContext, http: { ...event.requestContext.http, path: prefixed } } };
}

describe('a path secret holding # or \\ through an HTTP API, which decodes the path', () => {
  let handler: LambdaHandler;
  beforeAll(async () => {
    const policies = pathToFileURL(join(ROOT, 'policies')).href;
    handler = await createAwsLambdaHandler({
      AMENDER_LOG_LEVEL: 'error',
      AMENDER_POLICY_SOURCES: policies,
      AMENDER_CLUSTERS: 'edge',
      AMENDER_CLUSTER_EDGE_SOURCES: policies,
      AMENDER_CLUSTER_EDGE_SECRET_HASHES: await hashSecret(SECRET),
    });
  });
  const invoke = (event: Record<string, unknown>) => handler(event, { getRemainingTimeInMillis: () => 10_000 });

  it('is served as through a Function URL or a REST API, which keep the path encoded', async () => {
    const viaFunctionUrl = resultReply(await invoke(functionUrlEvent({ ...review, path: encoded }, false)));
    expect(viaFunctionUrl.status).toBe(200);
    expect((viaFunctionUrl.body as { response: { patch?: string } }).response.patch).toBeTruthy();
    expect(resultReply(await invoke(restApiEvent({ ...review, path: encoded }, false)))).toEqual(viaFunctionUrl);
    for (const stage of ['$default', 'prod']) {
      expect(resultReply(await invoke(httpApiDecoded(decoded, stage))), `stage ${stage}`).toEqual(viaFunctionUrl);
    }
  });

  it('refuses a wrong secret holding them as a wrong secret (401), not as a path that routes nowhere', async () => {
    const reply = resultReply(await invoke(httpApiDecoded(`/clusters/edge/${SECRET.replace('k9', 'x9')}/mutate`, '$default')));
    expect(reply.status).toBe(401);
  });
});
