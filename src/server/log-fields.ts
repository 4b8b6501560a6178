/**
 * The fields a review copies into its log lines (the request line, one line per failed policy), bounded.
 * A client may send any size of `request.uid` (a 7.5 MB uid made 22.5 MB of logs from one request) or of
 * names; the reply still echoes the uid whole (the API server checks it), but a log line carries at most
 * these many characters of each, then says it was cut and how long the whole was (truncatedForLog).
 */
import { truncatedForLog } from '../observe/index.js';
import type { ReviewSubject } from './review.js';

/**
 * The API server sends a UUID (36 characters); 128 leaves room for any other caller's id (a readable
 * test id, a prefixed UUID) and still keeps a line small.
 */
export const MAX_LOGGED_UID = 128;
/** Kubernetes bounds an object's name at 253 characters (a DNS subdomain), a namespace at 63; kinds are short. */
export const MAX_LOGGED_NAME = 253;
/**
 * Amender's messages are a sentence with a field path and a value cut at 60 characters; the few that
 * quote a client's string whole (the uid of an internal error, a Content-Type header) are cut here.
 */
export const MAX_LOGGED_MESSAGE = 1024;

export function loggedUid(uid: string): string;
export function loggedUid(uid: string | undefined): string | undefined;
export function loggedUid(uid: string | undefined): string | undefined {
  return uid === undefined ? undefined : truncatedForLog(uid, MAX_LOGGED_UID);
}

export function loggedMessage(message: string): string {
  return truncatedForLog(message, MAX_LOGGED_MESSAGE);
}

export function loggedSubject(subject: ReviewSubject): ReviewSubject {
  return {
    kind: truncatedForLog(subject.kind, MAX_LOGGED_NAME),
    namespace: truncatedForLog(subject.namespace, MAX_LOGGED_NAME),
    name: truncatedForLog(subject.name, MAX_LOGGED_NAME),
    operation: truncatedForLog(subject.operation, MAX_LOGGED_NAME),
  };
}
