/**
 * A real R2 bucket of miniflare (workerd's R2 implementation, kept in memory), driven from Node through
 * miniflare's handle on the binding: the R2 source takes that handle as its bucket directly (it calls only
 * the binding's `list` and `get`, which the handle proxies into workerd), so no Worker is needed.
 */
import { Miniflare } from 'miniflare';
import type { R2BucketLike } from '../../../src/sources/index.js';

/** The handle's methods a test uses (miniflare's own types need the Workers type package). */
export interface TestR2Bucket extends R2BucketLike {
  put(key: string, value: string | Uint8Array): Promise<unknown>;
  delete(keys: string | string[]): Promise<void>;
}

export interface TestR2 {
  /** The binding's name, as in an `r2://BINDING/prefix` address. */
  binding: string;
  bucket: TestR2Bucket;
  dispose(): Promise<void>;
}

export async function startR2(binding = 'POLICIES'): Promise<TestR2> {
  const mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }); } };',
    compatibilityDate: '2025-01-01',
    r2Buckets: [binding],
  });
  const bucket = (await mf.getR2Bucket(binding)) as unknown as TestR2Bucket;
  return { binding, bucket, dispose: () => mf.dispose() };
}
