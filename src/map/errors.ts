/**
 * The three kinds of trouble a MutatingAdmissionPolicy invocation can run into (spec/map.md §10):
 * configuration errors (reason Forbidden), evaluation errors (reason Invalid) — both subject to the
 * policy's failurePolicy — and status errors, which abort the request whatever the failurePolicy.
 */
import type { Status } from '../admission/index.js';
import { boundMessage } from '../guard/index.js';

export interface PolicyError {
  policy: string;
  /** Absent for policy-level configuration errors. */
  binding?: string;
  failurePolicy: 'Fail' | 'Ignore';
  reason: 'Invalid' | 'Forbidden';
  /** The full per-error text, e.g. `policy 'p' with binding 'b' denied request: ...`. */
  message: string;
}

/** The text of a policy's error; the engine's message is bounded (see boundMessage: CEL quotes values). */
export function policyErrorText(policy: string, binding: string | undefined, message: string): string {
  const bounded = boundMessage(message);
  return binding === undefined ? `policy "${policy}" denied request: ${bounded}` : `policy '${policy}' with binding '${binding}' denied request: ${bounded}`;
}

/** A status error: the request is answered with it at once. */
export class StatusAbort {
  constructor(readonly status: Status) {}
}

export function internalError(message: string): StatusAbort {
  return new StatusAbort({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${message}`, details: { causes: [{ message }] } });
}

