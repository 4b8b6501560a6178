import { describe, expect, it } from 'vitest';
import { hasOwn, isOwnRead, parseJson, setOwn, type JsonObject } from '../../src/json/index.js';

// isOwnRead answers the own-property test from the value read, taking the test itself only for reads
// that could be inherited: it must agree with hasOwn on every JSON object and key.
describe('isOwnRead', () => {
  const protoMember: JsonObject = {};
  setOwn(protoMember, '__proto__', { a: 1 });
  const objects: JsonObject[] = [
    {},
    { a: 1, b: null, c: '', d: false, e: 0, f: [], g: {} },
    parseJson('{"constructor": 1, "toString": null, "hasOwnProperty": {}, "__proto__": [1]}') as JsonObject,
    protoMember,
    Object.assign(Object.create(null) as JsonObject, { a: 1, valueOf: 'x' }),
  ];
  const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'z', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', '__defineGetter__', 'isPrototypeOf'];
  it('agrees with hasOwn', () => {
    for (const o of objects) {
      for (const k of keys) expect([k, isOwnRead(o, k, (o as Record<string, unknown>)[k])]).toEqual([k, hasOwn(o, k)]);
    }
  });
});
