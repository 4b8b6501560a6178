/**
 * The Lambda handler around the app: an HTTP event (Function URL, or API Gateway HTTP API with payload
 * format 2.0; REST API with payload 1.0; Application Load Balancer) in, its result out, in the event's format. Policy sets are loaded before the first answer and refreshed across
 * warm invocations: a due refresh runs beside the request and the invocation waits for it at most
 * `refreshWaitMs` (never into the function's own timeout, nor past the part of the API server's `?timeout=`
 * a review may take); one that has not finished by then goes on in
 * the next invocation, as the environment is frozen in between.
 */
import { redactPath, statusBody, type Logger } from '../server/index.js';
import { waitedBeforeInvocationMs } from './lambda-arrival.js';
import {
  assertHttpEventV2,
  eventToRequest,
  LambdaEventError,
  normalizeHttpEvent,
  responseToResult,
  resultInFormat,
  type EventFormat,
  type LambdaHttpResult,
  type LambdaHttpResultV2,
} from './lambda-event.js';
import { oversizeResult, resultLimitOf } from './lambda-result-size.js';
import { apiServerLeftSince, waitAtMost, type ServerlessRuntime } from './serverless-runtime.js';

/** The part of the Lambda context object used here. */
export interface LambdaContextLike {
  getRemainingTimeInMillis?: () => number;
}

export type LambdaHandler = (event: unknown, context?: LambdaContextLike) => Promise<LambdaHttpResult>;

/** Time kept free before the function's timeout: by a review's deadline, and when waiting for a load or a refresh. */
const TIMEOUT_MARGIN_MS = 500;

function refusal(status: 400 | 500, message: string): LambdaHttpResultV2 {
  return { statusCode: status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(statusBody(status, message)), isBase64Encoded: false };
}

/** What a refused event says of its request, as far as it has one: method and path (redacted), each a string. */
function requestLine(event: unknown): { method?: string; path?: string } {
  const e = (typeof event === 'object' && event !== null ? event : {}) as { rawPath?: unknown; requestContext?: { http?: { method?: unknown } } };
  const method = e.requestContext?.http?.method;
  return {
    ...(typeof method === 'string' ? { method: method.slice(0, 32) } : {}),
    ...(typeof e.rawPath === 'string' ? { path: redactPath(e.rawPath.slice(0, 2048)) } : {}),
  };
}

export interface LambdaHandlerOptions {
  refreshWaitMs: number;
  /** AMENDER_BASE_PATH: a custom domain's base path, taken off the paths that start with it (base-path.ts). */
  basePath?: string;
  /** Where a refused event's request line goes, as the Node server logs a request it refuses before routing. */
  logger?: Logger;
}

export function createLambdaHandler(runtime: ServerlessRuntime, options: LambdaHandlerOptions): LambdaHandler {
  // Logged and counted as the Node server does a request that makes no URL (route `malformed`).
  const refuse = (event: unknown, message: string, format: EventFormat): LambdaHttpResult => {
    runtime.amender.metrics.httpRequests.inc({ route: 'malformed', code: '400' });
    options.logger?.({ level: 'info', msg: 'request', ...requestLine(event), status: 400, message });
    return resultInFormat(refusal(400, message), format);
  };
  return async (given, context) => {
    // The API server's timeout runs from the request's arrival, before a cold start and the invocation.
    const invokedAt = Date.now();
    const waitedBefore = waitedBeforeInvocationMs(given, invokedAt);
    const arrivedAt = invokedAt - waitedBefore;
    let request: Request;
    const remaining = () => context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
    // A review's deadline ends before the invocation does, so its failurePolicy answers rather than Lambda's timeout.
    const timeLeftMs = context?.getRemainingTimeInMillis ? () => remaining() - TIMEOUT_MARGIN_MS : undefined;
    // Payload 1.0 and load balancer events as 2.0 ones; the reply goes back in the event's format.
    let event = given;
    let format: EventFormat = 'v2';
    try {
      ({ event, format } = normalizeHttpEvent(given));
      assertHttpEventV2(event);
      request = eventToRequest(event, options.basePath, timeLeftMs);
    } catch (err) {
      if (err instanceof LambdaEventError) return refuse(event, `not an HTTP request: ${err.message}`, format);
      // The URL's own error quotes the URL, and a cluster route's path may hold its secret.
      if (err instanceof TypeError) return refuse(event, 'not an HTTP request: its host and path do not make a URL', format);
      throw err;
    }
    // A first load waits no further than the invocation can: a timed-out invocation answers nothing and
    // resets the environment (its load with it), where a 503 keeps the load going for the next one. Nor
    // past the API server's timeout: it would no longer read the answer.
    const loadWaitMs = await runtime.ensureLoaded(request, () => Math.min(remaining() - TIMEOUT_MARGIN_MS, apiServerLeftSince(request, arrivedAt)));
    const due = runtime.refreshDue();
    const waitedMs = waitedBefore + loadWaitMs;
    const result = await responseToResult(await runtime.fetch(request, waitedMs > 0 ? { waitedMs } : undefined));
    // Nor past the API server's timeout: a reply it no longer waits for is lost, and the webhook's own
    // failurePolicy applies instead of the policies' answer (Ignore: the request goes on unmutated).
    if (due) await waitAtMost(due, Math.min(options.refreshWaitMs, remaining() - TIMEOUT_MARGIN_MS, apiServerLeftSince(request, arrivedAt)));
    const formatted = resultInFormat(result, format);
    const limit = resultLimitOf(format);
    const bytes = oversizeResult(formatted, limit);
    if (bytes === undefined) return formatted;
    // Lambda would refuse the result and its caller answer a bare 502: say why instead.
    const message = `the reply is ${bytes} bytes as a Lambda result, over the ${limit} bytes ${format === 'v1' || format === 'v2' ? 'AWS Lambda returns' : 'a load balancer takes from Lambda'}: the review's patch is too large to return from here`;
    options.logger?.({ level: 'error', msg: 'reply too large', ...requestLine(event), status: result.statusCode, bytes, limit });
    return resultInFormat(refusal(500, message), format);
  };
}
