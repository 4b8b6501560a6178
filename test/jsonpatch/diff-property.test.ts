import { describe, expect, it } from 'vitest';
import { cloneJson, jsonEqual, setOwn } from '../../src/json/index.js';
import type { JsonArray, JsonObject, JsonValue } from '../../src/json/index.js';
import { applyPatch, createPatch, parsePointer } from '../../src/jsonpatch/index.js';
import { rng, type Rng } from '../json/helpers.js';

const KEYS = ['a', 'b', 'name', 'spec', 'k8s.io/x', 'a~b', '~1', '/', '', '0', '12', '-', '__proto__', 'constructor', 'toString'];
const SCALARS: JsonValue[] = [null, true, false, 0, 1, -3, 2.5, 1e21, '', 'x', '0', 'null', 'ünï'];

function randomValue(r: Rng, depth: number): JsonValue {
  const roll = r.next();
  if (depth <= 0 || roll < 0.4) return r.pick(SCALARS);
  if (roll < 0.7) {
    const obj: JsonObject = {};
    const n = r.int(5);
    for (let i = 0; i < n; i++) setOwn(obj, r.pick(KEYS), randomValue(r, depth - 1));
    return obj;
  }
  const n = r.int(5);
  const arr: JsonArray = [];
  for (let i = 0; i < n; i++) arr.push(randomValue(r, depth - 1));
  return arr;
}

/** One random edit somewhere in a (mutable, private) document; returns the possibly new root. */
function edit(r: Rng, doc: JsonValue, depth = 0): JsonValue {
  if (typeof doc !== 'object' || doc === null || r.next() < 0.15 + depth * 0.05) {
    return r.next() < 0.5 ? randomValue(r, 2) : r.pick(SCALARS);
  }
  if (Array.isArray(doc)) {
    const roll = r.next();
    if (roll < 0.25 || doc.length === 0) doc.splice(r.int(doc.length + 1), 0, randomValue(r, 2));
    else if (roll < 0.45) doc.splice(r.int(doc.length), 1 + r.int(2));
    else {
      const i = r.int(doc.length);
      doc[i] = edit(r, doc[i], depth + 1);
    }
    return doc;
  }
  const keys = Object.keys(doc);
  const roll = r.next();
  if (roll < 0.25 || keys.length === 0) setOwn(doc, r.pick(KEYS), randomValue(r, 2));
  else if (roll < 0.45) delete doc[r.pick(keys)];
  else {
    const k = r.pick(keys);
    setOwn(doc, k, edit(r, doc[k], depth + 1));
  }
  return doc;
}

const isContainer = (v: JsonValue) => typeof v === 'object' && v !== null;

function valueAt(doc: JsonValue, pointer: string): JsonValue | undefined {
  const parsed = parsePointer(pointer);
  if (!parsed.ok) throw new Error(parsed.error);
  let cur: JsonValue | undefined = doc;
  for (const t of parsed.tokens) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = Array.isArray(cur) ? cur[Number(t)] : Object.prototype.hasOwnProperty.call(cur, t) ? cur[t] : undefined;
  }
  return cur;
}

describe('createPatch property: random documents and edits', () => {
  it('the diff applies strictly (and under the MAP applier) and reproduces the target; unchanged parts get no ops', () => {
    const r = rng(0x5eed);
    let totalOps = 0;
    for (let iteration = 0; iteration < 600; iteration++) {
      const from = randomValue(r, 4);
      const frozen = JSON.stringify(from);
      let to = cloneJson(from);
      const edits = 1 + r.int(4);
      for (let e = 0; e < edits; e++) to = edit(r, to);

      const ops = createPatch(from, to);
      totalOps += ops.length;
      const context = () => `iteration ${iteration}\nfrom ${frozen}\nto   ${JSON.stringify(to)}\nops  ${JSON.stringify(ops)}`;

      const strict = applyPatch(from, ops, 'rfc6902');
      if (!strict.ok) throw new Error(`${strict.message}\n${context()}`);
      expect(jsonEqual(strict.doc, to), context()).toBe(true);
      // kube-apiserver's applier (evanphx v4) works on object/array documents only.
      if (isContainer(from) && isContainer(to)) {
        const kube = applyPatch(from, ops, 'kubernetes');
        expect(kube.ok && jsonEqual(kube.doc, to), context()).toBe(true);
      }
      expect(JSON.stringify(from), 'input untouched').toBe(frozen);

      if (jsonEqual(from, to)) expect(ops, context()).toEqual([]);
      for (const op of ops) {
        // A replace always changes something: its target in `from` differs from the new value.
        if (op.op === 'replace') expect(jsonEqual(valueAt(from, op.path), op.value), context()).toBe(false);
      }
      expect(createPatch(to, cloneJson(to))).toEqual([]);
    }
    expect(totalOps).toBeGreaterThan(600);
  });
});
