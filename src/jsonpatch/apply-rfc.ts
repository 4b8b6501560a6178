import { hasOwn, jsonEqual, numberMarkOf, type NumberMark } from '../json/index.js';
import type { JsonArray, JsonObject, JsonValue } from '../json/index.js';
import { formatPointer, parsePointer, parseRfcIndex } from './pointer.js';
import type { Operation } from './types.js';
import { isContainer, WorkingCopy } from './working-copy.js';
import type { Location } from './working-copy.js';
import { OpFailure, opValueMark } from './op-failure.js';

/**
 * Strict RFC 6902: pointers must be RFC 6901, array indices plain decimals (no sign, no leading zero),
 * `-` only as the target of an add, every target of remove/replace/test and every `from` must exist,
 * and a value cannot be moved into its own child. This is what we hold our reply patches to.
 */
export function applyRfcOperation(wc: WorkingCopy, op: Operation): void {
  switch (op.op) {
    case 'add':
      return add(wc, op.path, op.value, opValueMark(op));
    case 'remove':
      return remove(wc, op.path);
    case 'replace':
      return replace(wc, op.path, op.value, opValueMark(op));
    case 'move':
      return move(wc, op.from, op.path);
    case 'copy':
      return copy(wc, op.from, op.path);
    case 'test':
      return test(wc, op.path, op.value);
    default:
      throw OpFailure.error(`unknown op ${JSON.stringify((op as { op: unknown }).op)}`);
  }
}

function tokensOf(pointer: string): string[] {
  const parsed = parsePointer(pointer);
  if (!parsed.ok) throw OpFailure.error(parsed.error);
  return parsed.tokens;
}

/** Walks to the container that holds the last token; every step must exist. */
function parentOf(wc: WorkingCopy, op: string, path: string, tokens: string[]): Location {
  let cur = wc.root;
  const loc: Location = { chain: [], keys: [] };
  for (let i = 0; i < tokens.length; i++) {
    if (!isContainer(cur)) {
      const where = formatPointer(tokens.slice(0, i));
      throw OpFailure.error(`${op} at ${JSON.stringify(path)}: ${JSON.stringify(where)} is ${kindOf(cur)}, not an object or array`);
    }
    loc.chain.push(cur);
    if (i === tokens.length - 1) break;
    const step = childOf(cur, tokens[i]);
    if (step === undefined) {
      throw OpFailure.error(`${op} at ${JSON.stringify(path)}: ${JSON.stringify(formatPointer(tokens.slice(0, i + 1)))} does not exist`);
    }
    loc.keys.push(step.key);
    cur = step.value;
  }
  return loc;
}

function childOf(c: JsonObject | JsonArray, token: string): { key: string | number; value: JsonValue } | undefined {
  if (Array.isArray(c)) {
    const index = parseRfcIndex(token);
    return index !== undefined && index < c.length ? { key: index, value: c[index] } : undefined;
  }
  return hasOwn(c, token) ? { key: token, value: c[token] } : undefined;
}

/** The member or element `tokens` (not the root) lead to, which must exist, with the container holding it. */
function existing(wc: WorkingCopy, op: string, pointer: string, tokens: string[]) {
  const loc = parentOf(wc, op, pointer, tokens);
  const parent = loc.chain[loc.chain.length - 1];
  const step = childOf(parent, tokens[tokens.length - 1]);
  if (step === undefined) throw OpFailure.error(`${op}: ${JSON.stringify(pointer)} does not exist`);
  return { loc, parent, step };
}

/** Value at `pointer`, which must exist, with the literal form of a number there. */
function valueAt(wc: WorkingCopy, op: string, pointer: string): { value: JsonValue; mark: NumberMark } {
  const tokens = tokensOf(pointer);
  if (tokens.length === 0) return { value: wc.root, mark: undefined };
  const { parent, step } = existing(wc, op, pointer, tokens);
  return { value: step.value, mark: numberMarkOf(parent, step.key) };
}

function add(wc: WorkingCopy, path: string, value: JsonValue, mark: NumberMark): void {
  const tokens = tokensOf(path);
  if (tokens.length === 0) return wc.setRoot(value);
  const loc = parentOf(wc, 'add', path, tokens);
  const parent = loc.chain[loc.chain.length - 1];
  const last = tokens[tokens.length - 1];
  if (!Array.isArray(parent)) return wc.setMember(loc, last, value, mark);
  const index = last === '-' ? parent.length : parseRfcIndex(last);
  if (index === undefined) throw OpFailure.error(`add at ${JSON.stringify(path)}: ${JSON.stringify(last)} is not an array index`);
  if (index > parent.length) {
    throw OpFailure.error(`add at ${JSON.stringify(path)}: index ${last} is out of bounds (array length ${parent.length})`);
  }
  wc.insertIndex(loc, index, value, mark);
}

function remove(wc: WorkingCopy, path: string): void {
  const tokens = tokensOf(path);
  if (tokens.length === 0) throw OpFailure.error('remove: the document root cannot be removed');
  const { loc, parent, step } = existing(wc, 'remove', path, tokens);
  if (Array.isArray(parent)) wc.removeIndex(loc, step.key as number);
  else wc.deleteMember(loc, step.key as string);
}

function replace(wc: WorkingCopy, path: string, value: JsonValue, mark: NumberMark): void {
  const tokens = tokensOf(path);
  if (tokens.length === 0) return wc.setRoot(value);
  const { loc, parent, step } = existing(wc, 'replace', path, tokens);
  if (Array.isArray(parent)) wc.setIndex(loc, step.key as number, value, mark);
  else wc.setMember(loc, step.key as string, value, mark);
}

function move(wc: WorkingCopy, from: string, path: string): void {
  const { value, mark } = valueAt(wc, 'move', from);
  if (from === path) return;
  if (path.startsWith(from + '/') || from === '') {
    throw OpFailure.error(`move: ${JSON.stringify(from)} cannot be moved into its own child ${JSON.stringify(path)}`);
  }
  remove(wc, from);
  add(wc, path, value, mark);
}

function copy(wc: WorkingCopy, from: string, path: string): void {
  const { value, mark } = valueAt(wc, 'copy', from);
  add(wc, path, wc.detach(value), mark);
}

function test(wc: WorkingCopy, path: string, expected: JsonValue): void {
  const { value } = valueAt(wc, 'test', path);
  if (!jsonEqual(value, expected)) throw OpFailure.testFailed(`test at ${JSON.stringify(path)} failed: the value differs`);
}

function kindOf(v: JsonValue): string {
  if (v === null) return 'null';
  return `a ${typeof v}`;
}
