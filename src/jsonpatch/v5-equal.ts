import { hasOwn, isFloatLiteral, sameExactInteger } from '../json/index.js';
import type { JsonObject, JsonValue } from '../json/index.js';

/** A container and the key of a value in it, to read the value's number marks; none at the top. */
export type Slot = readonly [object, string | number] | undefined;

/**
 * evanphx v5's equality of a document value and a `test` operation's value (lazyNode.equal): objects
 * member by member, lists item by item, strings by their decoded text, and any other scalar by its JSON
 * text (bytes.Equal of the compact forms). Kyverno writes the document's numbers as Go's encoding/json
 * does (an int64, or a float64 in its shortest form: for an integral value below 1e21 neither a fraction
 * nor an exponent) and hands over the operation's value as a JSON patch text wrote it, so a number
 * written `1.0` or `1e3` there (float-literal mark) equals no number of the document. Other spellings
 * Go would not write (`0.50`, `5e-1`) keep no mark and compare by value.
 */
export function v5Equal(doc: JsonValue, docSlot: Slot, op: JsonValue, opSlot: Slot): boolean {
  if (typeof op === 'number') {
    if (typeof doc !== 'number' || doc !== op) return false;
    if (opSlot !== undefined && isFloatLiteral(opSlot[0], opSlot[1]) && Math.abs(op) < 1e21) return false;
    return docSlot === undefined || opSlot === undefined || sameExactInteger(docSlot[0], docSlot[1], opSlot[0], opSlot[1]);
  }
  if (typeof op !== 'object' || op === null || typeof doc !== 'object' || doc === null) return doc === op;
  if (Array.isArray(op)) {
    if (!Array.isArray(doc) || doc.length !== op.length) return false;
    for (let i = 0; i < op.length; i++) if (!v5Equal(doc[i], [doc, i], op[i], [op, i])) return false;
    return true;
  }
  if (Array.isArray(doc)) return false;
  const keys = Object.keys(op);
  if (keys.length !== Object.keys(doc).length) return false;
  for (const key of keys) {
    if (!hasOwn(doc, key)) return false;
    if (!v5Equal((doc as JsonObject)[key], [doc, key], (op as JsonObject)[key], [op, key])) return false;
  }
  return true;
}
