import { hasOwn, jsonEqual, numberMarkOf, type NumberMark } from '../json/index.js';
import type { JsonArray, JsonObject, JsonValue } from '../json/index.js';
import { ensurePathExists } from './ensure-path.js';
import { arrayAdd, findObject, getChild, invalidIndex } from './evanphx-containers.js';
import type { EvanphxRules } from './evanphx-containers.js';
import { OpFailure, opValueMark } from './op-failure.js';
import { parseGoInt } from './pointer.js';
import type { Operation } from './types.js';
import { isContainer, WorkingCopy } from './working-copy.js';
import type { Location } from './working-copy.js';
import { v5Equal } from './v5-equal.js';

/**
 * One operation with evanphx/json-patch semantics (v4 = kube-apiserver's MutatingAdmissionPolicy
 * applier, v5 = Kyverno's), error texts included. Differences between the two that matter:
 * - v4 `replace` of a missing object member adds it; v5 reports `doc is missing key`.
 * - v4 `copy` from a missing member copies null; v5 reports it.
 * - v5 `add ""` replaces the whole document; v4 reports a missing path.
 * - v5 alone has AllowMissingPathOnRemove and EnsurePathExistsOnAdd.
 * Both accept negative indices (when enabled), Go `Atoi` indices (`01`, `+1`), treat a `null`
 * intermediate as missing, and read a path without a leading `/` by dropping its first segment.
 */
export function applyEvanphxOperation(wc: WorkingCopy, op: Operation, rules: EvanphxRules, root?: RootNode): void {
  switch (op.op) {
    case 'add':
      if (root && op.path === '' && rules.v5) root.self = op.value;
      return add(wc, op.path, op.value, opValueMark(op), rules);
    case 'remove':
      return remove(wc, op.path, rules);
    case 'replace':
      if (root && op.path === '' && rules.v5) root.self = null;
      return replace(wc, op.path, op.value, opValueMark(op), rules);
    case 'move':
      return move(wc, op.from, op.path, rules);
    case 'copy':
      return copy(wc, op.from, op.path, rules, root);
    case 'test':
      return test(wc, op, rules);
    default:
      throw OpFailure.error(`Unexpected kind: ${String((op as { op: unknown }).op)}`);
  }
}

/**
 * v5's root container keeps the node it was read from (`self`), which its `get("")` answers instead of
 * a member: the document as the patch received it, or the value of the last `add ""`; a `replace ""`
 * leaves a container without one (nil, copied as null). Kept only for a patch that copies from it.
 */
export interface RootNode {
  self: JsonValue;
}

/** Whether `from` names the root container's key "": `""`, or a single `/` that ends it (`/`, `x/`). */
export function fromRootSelf(from: string): boolean {
  return from.indexOf('/') === from.length - 1;
}

function last(loc: Location): JsonObject | JsonArray {
  return loc.chain[loc.chain.length - 1];
}

function add(wc: WorkingCopy, path: string, value: JsonValue, mark: NumberMark, rules: EvanphxRules): void {
  if (path === '' && rules.v5) {
    if (!isContainer(value)) throw OpFailure.error('add operation does not apply: the document root can only be replaced by an object or array');
    return wc.setRoot(value);
  }
  const found = rules.ensurePathExistsOnAdd ? ensurePathExists(wc, path, rules) : findObject(wc.root, path, rules);
  if (!found) throw OpFailure.error(`add operation does not apply: doc is missing path: "${path}": missing value`);
  const parent = last(found.loc);
  if (!Array.isArray(parent)) return wc.setMember(found.loc, found.key, value, mark);
  const added = arrayAdd(wc, found.loc, found.key, value, mark, rules);
  if (typeof added === 'string') throw OpFailure.error(`error in add for path: '${path}': ${added}`);
}

function remove(wc: WorkingCopy, path: string, rules: EvanphxRules): void {
  const found = findObject(wc.root, path, rules);
  if (!found) {
    if (rules.allowMissingPathOnRemove) return;
    throw OpFailure.error(`remove operation does not apply: doc is missing path: "${path}": missing value`);
  }
  const { loc, key } = found;
  const parent = last(loc);
  if (!Array.isArray(parent)) {
    if (hasOwn(parent, key)) return wc.deleteMember(loc, key);
    if (rules.allowMissingPathOnRemove) return;
    throw OpFailure.error(`error in remove for path: '${path}': ${rules.v5 ? 'u' : 'U'}nable to remove nonexistent key: ${key}: missing value`);
  }
  const n = parseGoInt(key);
  if (!n.ok) throw OpFailure.error(`error in remove for path: '${path}': ${n.error}`);
  let index = n.value;
  const len = parent.length;
  if (index >= len || (index < 0 && rules.supportNegativeIndices && index < -len)) {
    if (rules.allowMissingPathOnRemove) return;
    throw OpFailure.error(`error in remove for path: '${path}': ${invalidIndex(n.text)}`);
  }
  if (index < 0) {
    if (!rules.supportNegativeIndices) throw OpFailure.error(`error in remove for path: '${path}': ${invalidIndex(n.text)}`);
    index += len;
  }
  wc.removeIndex(loc, index);
}

function replace(wc: WorkingCopy, path: string, value: JsonValue, mark: NumberMark, rules: EvanphxRules): void {
  if (path === '') {
    if (!isContainer(value)) throw OpFailure.error('replace operation value must be object or array');
    return wc.setRoot(value);
  }
  const found = findObject(wc.root, path, rules);
  if (!found) throw OpFailure.error(`replace operation does not apply: doc is missing path: ${path}: missing value`);
  const parent = last(found.loc);
  const got = getChild(parent, found.key, rules);
  if (!got.ok) throw OpFailure.error(`replace operation does not apply: doc is missing key: ${path}: missing value`);
  if (Array.isArray(parent)) wc.setIndex(found.loc, got.key as number, value, mark);
  else wc.setMember(found.loc, found.key, value, mark);
}

function move(wc: WorkingCopy, from: string, path: string, rules: EvanphxRules): void {
  if (from === '' && rules.v5) throw OpFailure.error('unable to move entire document to another path: invalid state detected');
  const src = findObject(wc.root, from, rules);
  if (!src) throw OpFailure.error(`move operation does not apply: doc is missing from path: ${from}: missing value`);
  const parent = last(src.loc);
  const got = getChild(parent, src.key, rules);
  if (!got.ok) throw OpFailure.error(`error in move for path: '${src.key}': ${got.error}`);
  const value = got.value ?? null;
  const mark = numberMarkOf(parent, got.key);
  if (Array.isArray(parent)) {
    wc.removeIndex(src.loc, got.key as number);
  } else {
    // v4's get never fails on objects; its remove does.
    if (!hasOwn(parent, src.key)) {
      throw OpFailure.error(`error in move for path: '${src.key}': Unable to remove nonexistent key: ${src.key}: missing value`);
    }
    wc.deleteMember(src.loc, src.key);
  }
  const dest = findObject(wc.root, path, rules);
  if (!dest) throw OpFailure.error(`move operation does not apply: doc is missing destination path: ${path}: missing value`);
  if (!Array.isArray(last(dest.loc))) return wc.setMember(dest.loc, dest.key, value, mark);
  const added = arrayAdd(wc, dest.loc, dest.key, value, mark, rules);
  if (typeof added === 'string') throw OpFailure.error(`error in move for path: '${path}': ${added}`);
}

function copy(wc: WorkingCopy, from: string, path: string, rules: EvanphxRules, root?: RootNode): void {
  const src = findObject(wc.root, from, rules);
  if (!src) {
    const shown = rules.v5 ? `"${from}"` : from;
    throw OpFailure.error(`copy operation does not apply: doc is missing from path: ${shown}: missing value`);
  }
  const parent = last(src.loc);
  let value: JsonValue;
  let mark: NumberMark;
  if (rules.v5 && src.key === '') {
    // v5's get("") is the container's own node (partialDoc.get, partialArray.get), not its "" member:
    // the root's RootNode; a container below the root has none (nil, copied as null).
    value = src.loc.chain.length === 1 ? (root?.self ?? null) : null;
    mark = undefined;
  } else {
    const got = getChild(parent, src.key, rules);
    if (!got.ok) throw OpFailure.error(`error in copy for from: '${from}': ${got.error}`);
    // v4 reads a missing member as nil and copies it as null.
    value = wc.detach(got.value ?? null);
    mark = numberMarkOf(parent, got.key);
  }
  const dest = findObject(wc.root, path, rules);
  if (!dest) throw OpFailure.error(`copy operation does not apply: doc is missing destination path: ${path}: missing value`);
  if (!Array.isArray(last(dest.loc))) return wc.setMember(dest.loc, dest.key, value, mark);
  const added = arrayAdd(wc, dest.loc, dest.key, value, mark, rules);
  if (typeof added === 'string') throw OpFailure.error(`error while adding value during copy: ${added}`);
}

function test(wc: WorkingCopy, op: Operation & { op: 'test' }, rules: EvanphxRules): void {
  const { path, value: expected } = op;
  const valueAbsent = op.valueAbsent === true;
  const failed = () => OpFailure.testFailed(`testing value ${path} failed: test failed`);
  if (path === '') {
    const equal = rules.v5 ? v5Equal(wc.root, undefined, expected, [op, 'value']) : jsonEqual(wc.root, expected) || v4NullMatches(wc.root, expected, valueAbsent, rules);
    if (!equal) throw failed();
    return;
  }
  const found = findObject(wc.root, path, rules);
  if (!found) throw OpFailure.error(`test operation does not apply: is missing path: ${path}: missing value`);
  const got = getChild(last(found.loc), found.key, rules);
  let actual: JsonValue | undefined;
  if (got.ok) actual = got.value;
  else if (!got.missing) throw OpFailure.error(`error in test for path: '${path}': ${got.error}`);
  // A missing member and a null one both read as Go's nil node. v5 matches it with a null value; v4 only
  // with an operation that has no value node: MutatingAdmissionPolicy marshals a CEL `value: null` into
  // the operation as the raw text `null` (mutating/patch/json_patch.go), which v4's test (`op.value().raw
  // == nil`) does not take for nil, so such a test fails.
  if (actual === undefined || actual === null) {
    if (rules.v5 ? expected !== null : !valueAbsent) throw failed();
    return;
  }
  if (rules.v5) {
    if (expected === null || !v5Equal(actual, [last(found.loc), got.ok ? got.key : found.key], expected, [op, 'value'])) throw failed();
    return;
  }
  if (expected === null ? !v4NullMatches(actual, expected, valueAbsent, rules) : !jsonEqual(actual, expected)) throw failed();
}

/**
 * v4 compares a container with the operation's value by decoding the value into a map or a slice
 * (lazyNode.equal, tryDoc/tryAry), and Go decodes the text `null` into either without error, as an empty
 * one: a `value: null` (kube-apiserver writes a CEL null as that text) equals `{}` and `[]`. An operation
 * without a value has no node to decode (v4 fails the test). v5 checks for null first (isNull).
 */
function v4NullMatches(actual: JsonValue, expected: JsonValue, valueAbsent: boolean, rules: EvanphxRules): boolean {
  if (rules.v5 || valueAbsent || expected !== null || !isContainer(actual)) return false;
  if (Array.isArray(actual)) return actual.length === 0;
  for (const _ in actual) return false;
  return true;
}
