/**
 * The largest result a Lambda invocation may return. Lambda serializes the handler's result as JSON and
 * refuses one over 6,291,556 bytes (its "6 MB" synchronous payload: `Function.ResponseSizeTooLarge`,
 * "Response payload size exceeded maximum allowed payload size (6291556 bytes)"); a Function URL or API
 * Gateway then answers 502 "Internal Server Error", which tells the API server nothing. An Application Load
 * Balancer takes a response JSON of at most 1 MB. A review's reply can pass these: a patch that adds a
 * field to each of 100,000 list items is some 5 MB, 7 MB once base64, from a 300 KB review. Such a result
 * is replaced by a 500 whose Status says why, so the API server's error (and the webhook's failurePolicy)
 * names the cause.
 */
import { utf8Length } from '../json/index.js';
import type { EventFormat } from './lambda-event.js';

/** Lambda's limit on a synchronous invocation's result, in bytes of its JSON. */
export const LAMBDA_RESULT_MAX_BYTES = 6_291_556;

/** An Application Load Balancer's limit on a Lambda target's response JSON ("1 MB"). */
export const ALB_RESULT_MAX_BYTES = 1_048_576;

/** Bytes of JSON a result's members other than its body take at most, headers included (ours are a few). */
const BESIDE_BODY_BYTES = 16 * 1024;

/** The most bytes JSON may spend on one UTF-16 unit of a string (`\u001f`). */
const MAX_BYTES_PER_UNIT = 6;

export function resultLimitOf(format: EventFormat): number {
  return format === 'alb' || format === 'alb-multi' ? ALB_RESULT_MAX_BYTES : LAMBDA_RESULT_MAX_BYTES;
}

/**
 * The size of `result` as Lambda counts it (its JSON, in UTF-8) when that may pass `limit`; undefined
 * when it cannot, read off the body's length without serializing anything (every ordinary reply).
 */
export function oversizeResult(result: { body?: string }, limit: number): number | undefined {
  const units = result.body?.length ?? 0;
  if (units * MAX_BYTES_PER_UNIT + BESIDE_BODY_BYTES <= limit) return undefined;
  const bytes = utf8Length(JSON.stringify(result));
  return bytes > limit ? bytes : undefined;
}
