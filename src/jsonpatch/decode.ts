import { copyNumberMark, getOwn, goJsonKind, hasOwn, isJsonObject } from '../json/index.js';
import type { JsonObject, JsonValue } from '../json/index.js';
import { resolveOptions } from './types.js';
import type { ApplyOptions, DecodeResult, Flavour, Operation, OperationName } from './types.js';

const OP_NAMES: ReadonlySet<string> = new Set<OperationName>(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/**
 * Turns a JSON value (an array of operation objects) into typed operations, checking each the way the
 * flavour's reference library does, so that nothing is applied when the patch is malformed:
 * - rfc6902: `op` one of the six, `path` (and `from` for move/copy) strings, `value` present for
 *   add/replace/test.
 * - kubernetes (evanphx v4): unknown op → `Unexpected kind: <op>`; a missing `value` means `null`, as
 *   the v4 library reads it (MutatingAdmissionPolicy emits `value` only when the CEL field is set),
 *   except for `test`, where only a missing one is Go's nil node (`valueAbsent`).
 * - kyverno (evanphx v5 `DecodePatch`): add/replace need `value`, move/copy need `from`; a `test`
 *   without `value` compares with null. Messages are v5's (`invalid operation {...}: ...`).
 */
export function decodePatch(input: unknown, flavour: Flavour | ApplyOptions = 'rfc6902'): DecodeResult {
  const engine = resolveOptions(flavour).engine;
  if (!Array.isArray(input)) {
    return { ok: false, message: `a JSON patch must be an array of operations, got ${describe(input)}` };
  }
  const patch: Operation[] = [];
  for (let i = 0; i < input.length; i++) {
    const raw = input[i] as unknown;
    if (!isJsonObject(raw)) {
      return { ok: false, opIndex: i, message: `operation ${i} must be an object, got ${describe(raw)}` };
    }
    const checked =
      engine === 'evanphx-v4' ? checkV4(raw) : engine === 'evanphx-v5' ? checkV5(raw) : checkRfc(raw, i);
    if (typeof checked === 'string') return { ok: false, opIndex: i, message: checked };
    patch.push(checked);
  }
  return { ok: true, patch };
}

type Checked = Operation | string;

function checkRfc(raw: JsonObject, i: number): Checked {
  const op = getOwn(raw, 'op');
  if (typeof op !== 'string') return `operation ${i}: "op" must be a string, got ${describe(op)}`;
  if (!OP_NAMES.has(op)) return `operation ${i}: unknown op ${JSON.stringify(op)}`;
  const path = getOwn(raw, 'path');
  if (typeof path !== 'string') return `operation ${i} (${op}): "path" must be a string, got ${describe(path)}`;
  if (op === 'move' || op === 'copy') {
    const from = getOwn(raw, 'from');
    if (typeof from !== 'string') return `operation ${i} (${op}): "from" must be a string, got ${describe(from)}`;
    return { op, from, path };
  }
  if (op === 'remove') return { op, path };
  if (!hasOwn(raw, 'value')) return `operation ${i} (${op}): "value" is missing`;
  return withValue(raw, { op: op as 'add' | 'replace' | 'test', path, value: raw.value });
}

/** evanphx `Operation.Kind()`: the op string, or "unknown" when absent or not a string. */
function kindOf(raw: JsonObject): string {
  const op = getOwn(raw, 'op');
  return typeof op === 'string' ? op : 'unknown';
}

/** evanphx reads string fields with encoding/json; these are its errors. */
function goString(raw: JsonObject, field: 'path' | 'from'): string | { error: string } {
  if (!hasOwn(raw, field) || raw[field] === null) {
    return { error: field === 'path' ? 'operation missing path field: missing value' : 'operation, missing from field: missing value' };
  }
  const v = raw[field];
  if (typeof v === 'string') return v;
  return { error: `json: cannot unmarshal ${goJsonKind(v)} into Go value of type string` };
}

function checkV4(raw: JsonObject): Checked {
  const op = kindOf(raw);
  if (!OP_NAMES.has(op)) return `Unexpected kind: ${op}`;
  // v4 reads `from` before `path` for move/copy, and words each failure per op.
  if (op === 'move' || op === 'copy') {
    const from = goString(raw, 'from');
    if (typeof from !== 'string') return `${op} operation failed to decode from: ${from.error}`;
    const path = goString(raw, 'path');
    if (typeof path !== 'string') {
      return op === 'copy' ? 'copy operation failed to decode path: missing value' : `move operation failed to decode path: ${path.error}`;
    }
    return { op, from, path };
  }
  const path = goString(raw, 'path');
  if (typeof path !== 'string') {
    return op === 'add' || op === 'remove'
      ? `${op} operation failed to decode path: missing value`
      : `${op} operation failed to decode path: ${path.error}`;
  }
  if (op === 'remove') return { op, path };
  if (!hasOwn(raw, 'value')) return op === 'test' ? { op, path, value: null, valueAbsent: true } : { op: op as 'add' | 'replace', path, value: null };
  return withValue(raw, { op: op as 'add' | 'replace' | 'test', path, value: raw.value });
}

function checkV5(raw: JsonObject): Checked {
  const op = kindOf(raw);
  if (!OP_NAMES.has(op)) return invalidV5(raw, 'unsupported operation');
  if ((op === 'add' || op === 'replace') && !hasOwn(raw, 'value')) {
    return invalidV5(raw, "failed to decode 'value': operation, missing value field: missing value");
  }
  let from: string | undefined;
  if (op === 'move' || op === 'copy') {
    const f = goString(raw, 'from');
    if (typeof f !== 'string') return invalidV5(raw, `failed to decode 'from': ${f.error}`);
    from = f;
  }
  const path = goString(raw, 'path');
  if (typeof path !== 'string') return invalidV5(raw, `failed to decode 'path': ${path.error}`);
  if (from !== undefined) return { op: op as 'move' | 'copy', from, path };
  if (op === 'remove') return { op, path };
  return withValue(raw, { op: op as 'add' | 'replace' | 'test', path, value: hasOwn(raw, 'value') ? raw.value : null });
}

/** v5's DecodePatch error for one operation (a plain function: checkV5 runs for every operation). */
function invalidV5(raw: JsonObject, why: string): string {
  return `invalid operation ${goOpJson(raw)}: ${why}`;
}

/** Keeps the literal form of a number `value` (`1.0`, an exact int64 past ±2^53) on the decoded operation. */
function withValue(raw: JsonObject, op: Operation & { value: JsonValue }): Operation {
  if (typeof op.value === 'number') copyNumberMark(raw, 'value', op, 'value');
  return op;
}

/** Go's `json.Marshal` of the operation map: keys sorted, compact. */
function goOpJson(raw: JsonObject): string {
  const keys = Object.keys(raw).sort();
  return '{' + keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(raw[k])}`).join(',') + '}';
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}
