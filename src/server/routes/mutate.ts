import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { replyText } from '../../admission/index.js';
import type { BodyBudget } from '../body-budget.js';
import { holdForAnswer, readBodyInBudget } from './body-in-budget.js';
import type { Limits } from '../limits.js';
import type { Logger } from '../../observe/index.js';
import { clusterOfSet, logPolicyFailures } from '../policy-log.js';
import type { AppMetrics } from '../app-metrics.js';
import type { PolicySetState } from '../../policyset/index.js';
import { failure, type ReviewAnswer } from '../review.js';
import type { AppEnv } from '../context.js';
import type { Reviewer } from '../reviewer.js';
import { clientSignalOf } from '../client-signal.js';
import { apiServerTimeoutMs, platformTimeLeftMs, reviewDeadlineMs } from '../api-timeout.js';

export interface MutateDeps {
  limits: Limits;
  metrics: AppMetrics;
  clock: () => number;
  /** Evaluates the review once its body is read (in-process, or a worker pool on Node). */
  reviewer: Reviewer;
  logger: Logger;
  /** Bytes of request bodies held at once (the Node server's, a Workers isolate's); without it, no bound beyond each body's. */
  bodies?: BodyBudget;
}

/**
 * The headers of a 200 reply (what c.json sets), shared by every reply: the Response copies them. A 200
 * reply is built directly as `new Response(text)`, without Hono's context headers (none are set on that
 * path) and without serializing the reply a second time.
 */
const JSON_REPLY_INIT: ResponseInit = Object.freeze({ status: 200, headers: Object.freeze({ 'content-type': 'application/json' }) });

function isJsonContentType(value: string | undefined): boolean {
  if (value === 'application/json') return true; // what the API server sends
  if (value === undefined || value.trim() === '') return true; // the API server always sends one; curl users may not
  const type = value.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

/**
 * True for no Content-Encoding or only `identity`. The API server never compresses a review; a compressed
 * body would be read as garbage, and inflating one would let a few bytes become many, so it is refused.
 */
function isIdentityEncoding(value: string | undefined): boolean {
  if (value === undefined) return true;
  return value.split(',').every((coding) => {
    const c = coding.trim().toLowerCase();
    return c === '' || c === 'identity';
  });
}

/**
 * The handler of a mutate route. `state` picks the policy set for this request (the default set for
 * `/mutate`; a cluster's set for the multi-cluster routes, after authentication), read once; `setName`
 * names that set for the reviewer (see ReviewJob.setName).
 */
export function mutateHandler(deps: MutateDeps, state: (c: Context<AppEnv>) => PolicySetState, setName = 'default') {
  return async (c: Context<AppEnv>): Promise<Response> => {
    // The review's time runs from its arrival: what it waited before the app saw it is spent already.
    const started = deps.clock() - waitedBeforeApp(c);
    const { answer, held, evaluatedOn } = await answerRequest(c, deps, state, setName, started);
    let reply = '';
    try {
      const cluster = clusterOfSet(setName);
      deps.metrics.countReview(answer.outcome, cluster, (deps.clock() - started) / 1000);
      if (answer.status === 200 && answer.outcomes) {
        const policySet = cluster ?? 'default';
        // The state the review was evaluated on: a newer set prunes the series of policies it no longer
        // serves (policy-metrics.ts).
        deps.metrics.policies.record(policySet, answer.outcomes, evaluatedOn);
        logPolicyFailures(deps.logger, policySet, answer);
      }
      c.set('review', answer);
      // 499 is not among Hono's codes: it names an answer no client reads (status.ts).
      if (answer.status !== 200) return c.json(answer.body, answer.status as ContentfulStatusCode);
      reply = answer.bodyText ?? replyText(answer.body);
      return new Response(reply, JSON_REPLY_INIT);
    } finally {
      // An error answer is a short status: only a review's reply is counted while it is written.
      if (held > 0) holdForAnswer(c.req.raw, deps.bodies!, held, reply.length);
    }
  };
}

/**
 * The review's answer, the bytes its body holds in the body budget (the caller passes them on to the
 * answer: holdForAnswer) and the state its set was read from, once, for the metrics.
 */
async function answerRequest(
  c: Context<AppEnv>,
  deps: MutateDeps,
  state: (c: Context<AppEnv>) => PolicySetState,
  setName: string,
  started: number,
): Promise<{ answer: ReviewAnswer; held: number; evaluatedOn?: PolicySetState }> {
  const contentType = c.req.header('content-type');
  if (!isJsonContentType(contentType)) {
    return { answer: failure(415, 'unsupported', `expected Content-Type application/json, got ${JSON.stringify(contentType)}`), held: 0 };
  }
  const encoding = c.req.header('content-encoding');
  if (!isIdentityEncoding(encoding)) {
    c.header('Accept-Encoding', 'identity'); // RFC 7694: what would be accepted
    return { answer: failure(415, 'unsupported', `Content-Encoding ${JSON.stringify(encoding)} is not accepted: send the review uncompressed`), held: 0 };
  }
  const signal = clientSignalOf(c.req.raw);
  const read = await readBodyInBudget(c.req.raw, deps.limits, deps.bodies, { waitForMs: () => limitsFor(c, deps, started, 0).reviewDeadlineMs, signal, clock: deps.clock });
  if ('refused' in read) return { answer: read.refused, held: 0 };
  const { body, held, waitedMs } = read;
  if (!body.ok) {
    // Nothing is held for a body not read.
    const outcome = body.status === 413 ? 'too_large' : body.status === 408 ? 'timeout' : body.status === 499 ? 'abandoned' : 'invalid';
    return { answer: failure(body.status, outcome, body.message), held: 0 };
  }
  try {
    const evaluatedOn = state(c);
    return { answer: await deps.reviewer({ body: body.body, setName, state: evaluatedOn, limits: limitsFor(c, deps, started, waitedMs), signal }), held, evaluatedOn };
  } catch (err) {
    if (held > 0) deps.bodies!.give(held);
    throw err;
  }
}

/** Milliseconds the adapter says the request waited before the app saw it (RequestHints.waitedMs); 0 when none. */
function waitedBeforeApp(c: Context<AppEnv>): number {
  // Hono's env is whatever the adapter passed to app.fetch: nothing at all on the Node server.
  const waited = (c.env as AppEnv['Bindings'] | undefined)?.waitedMs;
  return typeof waited === 'number' && waited > 0 ? waited : 0;
}

/**
 * The app's limits, with the review deadline shortened to fit the API server's `?timeout=` and the time
 * the platform leaves the request (api-timeout.ts), and by the time the request waited for room for its body.
 */
function limitsFor(c: Context<AppEnv>, deps: MutateDeps, started: number, waitedMs: number): Limits {
  const configured = deps.limits.reviewDeadlineMs;
  // The deadline runs from the review's arrival: the waits before the review (for its set's first load, for
  // body room) come off it, then the API server's timeout may shorten it further (never lengthen it).
  const waited = waitedMs + waitedBeforeApp(c);
  const afterWait = waited > 0 ? Math.max(1, Math.floor(configured - waited)) : configured;
  const timeout = apiServerTimeoutMs(c.req.query('timeout'));
  const forApiServer = timeout === undefined ? afterWait : reviewDeadlineMs(afterWait, timeout, deps.clock() - started);
  // And to what the platform leaves the request (Lambda: the invocation's time), at least a millisecond.
  const timeLeft = platformTimeLeftMs(c.req.raw);
  const deadline = timeLeft === undefined ? forApiServer : Math.max(1, Math.min(forApiServer, Math.floor(timeLeft)));
  return deadline === configured ? deps.limits : { ...deps.limits, reviewDeadlineMs: deadline };
}
