/**
 * An in-memory R2Bucket-shaped binding for the R2 source's tests of faults miniflare's bucket cannot
 * produce: a key listed whose get() returns null, a get() that throws, an object without its body.
 */
import { PolicySetRefresher } from '../../src/sources/index.js';
import { r2Source, type R2BucketLike, type R2ObjectLike } from '../../src/sources/r2.js';

/** An in-memory R2 bucket: `objects` listed and read; `phantom` keys listed but `get()` null; `throwing` keys' `get()` throws, `bodyThrowing` keys' body read; `bodiless` keys' `get()` comes without a body. */
export function r2StubBucket() {
  const objects = new Map<string, { text: string; etag: string }>();
  const phantom = new Set<string>();
  const throwing = new Map<string, () => Error>();
  /** Keys whose get() answers, and whose body's read throws. */
  const bodyThrowing = new Map<string, () => Error>();
  /** Keys whose get() without a condition answers the object's metadata without its body (a conditional one is answered as usual). */
  const bodiless = new Set<string>();
  const gets: string[] = [];
  let n = 0;
  const put = (key: string, text: string) => objects.set(key, { text, etag: `etag-${++n}` });
  const bucket: R2BucketLike = {
    async list({ prefix = '' } = {}) {
      const keys = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort();
      return { objects: keys.map((key) => ({ key, etag: objects.get(key)!.etag, size: new TextEncoder().encode(objects.get(key)!.text).length })), truncated: false };
    },
    async get(key, options) {
      gets.push(key);
      const fault = throwing.get(key);
      if (fault) throw fault();
      const o = objects.get(key);
      if (!o || phantom.has(key)) return null;
      const meta = { key, etag: o.etag, size: new TextEncoder().encode(o.text).length };
      if (options?.onlyIf?.etagDoesNotMatch === o.etag || (options?.onlyIf === undefined && bodiless.has(key))) return meta;
      const read = async <T>(value: () => T) => {
        const cut = bodyThrowing.get(key);
        if (cut) throw cut();
        return value();
      };
      const body: R2ObjectLike = { ...meta, text: () => read(() => o.text), arrayBuffer: () => read(() => new TextEncoder().encode(o.text).buffer as ArrayBuffer) };
      return body;
    },
  };
  return { bucket, objects, phantom, throwing, bodyThrowing, bodiless, gets, put };
}

/** A stub bucket and a refresher of one R2 source reading it under prefix `p`. */
export function r2StubRefresher() {
  const s = r2StubBucket();
  const r = new PolicySetRefresher({ name: 'default', sources: [r2Source({ uri: 'r2://POLICIES/p', bucket: s.bucket, prefix: 'p' })], intervalMs: 0 });
  return { ...s, r };
}

/** The names of the policies in force. */
export const policyNames = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];

/** The set's problems as `source: message`. */
export const problemsOf = (r: PolicySetRefresher) => (r.provider().set?.problems ?? []).map((p) => `${p.source}: ${p.message}`);
