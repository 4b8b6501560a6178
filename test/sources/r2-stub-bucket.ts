/**
 * An in-memory R2Bucket-shaped binding for the R2 source's tests of faults miniflare's bucket cannot
 * produce: a key listed whose get() returns null, a get() that throws, an object without its body.
 */
import type { R2BucketLike, R2ObjectLike } from '../../src/sources/r2.js';

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
