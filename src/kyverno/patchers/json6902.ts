/**
 * `patchesJson6902` (pkg/engine/mutate/patch): the patch text, already substituted, is decoded — JSON
 * when its first character is `[`, YAML 1.1 otherwise — checked (known ops, JSON-pointer paths, `value`
 * and `from` where needed) and applied all-or-nothing with the three options Kyverno sets (negative
 * indices, remove of a missing path is a no-op, add creates missing parents).
 */
import { isReviewAborted, UNBOUNDED_GUARD, type ReviewGuard } from '../../guard/index.js';
import { parseJson, type JsonValue } from '../../json/index.js';
import { applyPatch, decodePatch, parsePointer, type Operation, type PatchChain } from '../../jsonpatch/index.js';
import { EmptyMutateRule, KyvernoRuleError, messageOf } from '../errors.js';
import { parseYaml11 } from '../../go/index.js';
import { measureValue } from '../measure.js';
import type { PatchHeights } from './patch-heights.js';

/**
 * Patch text → its JSON value: JSON when it starts with `[`, YAML 1.1 otherwise. Throws KyvernoRuleError.
 * `guard`: the review's, when the text holds values substituted from it (its deadline and value bound).
 */
export function parsePatchText(patch: JsonValue, guard?: ReviewGuard): JsonValue {
  // mutate.NewPatcher: only an empty text is no patch (len(jsonPatch) > 0); a blank one is YAML for null.
  if (patch === null || patch === '') throw new EmptyMutateRule();
  if (typeof patch !== 'string') {
    throw new KyvernoRuleError(`patchesJson6902 must be text, got ${Array.isArray(patch) ? 'a list' : typeof patch}`);
  }
  try {
    return patch[0] === '[' ? parseJson(patch) : parseYaml11(patch, guard);
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    throw new KyvernoRuleError(`patchesJson6902 is neither valid JSON nor valid YAML: ${messageOf(error)}`);
  }
}

/**
 * A parsed patch → checked operations (known ops, JSON-pointer paths, `value`/`from`). Null (the YAML of
 * a blank or comment-only text, or `null`) is no operation: json-patch's DecodePatch reads `null` as an
 * empty patch, so the rule applies nothing ("no patches applied"), and policy validation accepts it.
 */
export function decodePatchValue(value: JsonValue): Operation[] {
  if (value === null) return [];
  const decoded = decodePatch(value, 'kyverno');
  if (!decoded.ok) throw new KyvernoRuleError(`invalid patchesJson6902: ${decoded.message}`);
  const ops = decoded.patch;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    checkPointer(op.path, i, 'path');
    if (op.op === 'move' || op.op === 'copy') checkPointer(op.from, i, 'from');
  }
  return ops;
}

/** Text → checked operations. */
export function decodeKyvernoPatch(patch: JsonValue, guard?: ReviewGuard): Operation[] {
  return decodePatchValue(parsePatchText(patch, guard));
}

/**
 * Kyverno's admission check rejects paths that do not start with `/`; at run time the Go library would
 * silently treat the first segment as the root. A clear error is better than a wrong patch.
 */
function checkPointer(pointer: string, index: number, field: 'path' | 'from'): void {
  if ((pointer === '' || pointer[0] === '/') && !BAD_TILDE.test(pointer)) return;
  const parsed = parsePointer(pointer);
  if (!parsed.ok) throw new KyvernoRuleError(`invalid patchesJson6902: operation ${index} ${field}: ${parsed.error}`);
}

const BAD_TILDE = /~(?![01])/;

function hasCopy(ops: readonly Operation[]): boolean {
  for (let i = 0; i < ops.length; i++) if (ops[i].op === 'copy') return true;
  return false;
}

/**
 * Applies decoded operations; the resource is left untouched when any operation fails (with a `chain`,
 * see PatchChain: the foreach elements' patches). `copy` shares the copied value, so a few dozen copies
 * of copies describe an exponentially large document: with copies in the patch, the result is measured
 * against the guard's size bound. `heights`: the rule's, told the operations applied.
 */
export function applyKyvernoPatch(resource: JsonValue, ops: readonly Operation[], guard: ReviewGuard = UNBOUNDED_GUARD, chain?: PatchChain, heights?: PatchHeights): JsonValue {
  // The deadline was read just before (the rule's or the foreach element's step); after the patch it is read again.
  const result = applyPatch(resource, ops, 'kyverno', undefined, chain);
  // Kyverno gives json-patch's error as it is (under "failed to patch resource").
  if (!result.ok) throw new KyvernoRuleError(result.message);
  if (hasCopy(ops)) measureValue(result.doc, guard, 'the patched resource');
  heights?.patched(ops);
  guard.check();
  return result.doc;
}
