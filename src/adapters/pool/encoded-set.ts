/**
 * A set version's documents serialized once into shared memory, for the workers it is sent to after the
 * first. Posting the documents themselves structured-cloned them on the main thread once per worker: with
 * seven workers and a set of large CRDs, seconds in which no probe or review was answered. The shared
 * buffer crosses by reference; each worker decodes it on its own thread. The first worker still gets a
 * clone (pool.ts): at a cold start there is only one, and node:v8 (about 2 ms to load, on either thread)
 * stays off the path to the first reply.
 */
import type { ParsedSource } from '../../policyset/index.js';

type V8 = typeof import('node:v8');
const v8 = (): V8 => process.getBuiltinModule('node:v8') as V8;

export function encodeInputs(inputs: readonly ParsedSource[]): SharedArrayBuffer {
  const bytes = v8().serialize(inputs);
  const shared = new SharedArrayBuffer(bytes.length);
  new Uint8Array(shared).set(bytes);
  return shared;
}

export function decodeInputs(encoded: SharedArrayBuffer): readonly ParsedSource[] {
  return v8().deserialize(new Uint8Array(encoded)) as readonly ParsedSource[];
}
