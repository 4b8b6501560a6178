import { ReviewAborted, type ReviewGuard } from '../guard/index.js';
import type { JsonValue } from '../json/index.js';
import { applyEvanphxOperation, fromRootSelf, type RootNode } from './apply-evanphx.js';
import { applyRfcOperation } from './apply-rfc.js';
import { decodePatch } from './decode.js';
import type { EvanphxRules } from './evanphx-containers.js';
import { OpFailure } from './op-failure.js';
import { jsonSizeUpTo, valueAtPointer } from './size.js';
import { resolveOptions } from './types.js';
import type { ApplyOptions, ApplyResult, Flavour, Operation } from './types.js';
import { isContainer, WorkingCopy } from './working-copy.js';

const DEFAULT_MAX_ARRAY_PADDING = 10_000;

/**
 * Applies `patch` to `doc` in order, all or nothing, with the chosen flavour's semantics. The input is
 * never mutated: the result shares every untouched subtree with it (and holds the patch's values as they
 * are), so treat both as read-only. Expected failures come back as a result value, never as a throw.
 *
 * With a review guard: each operation ticks it, and the values `copy` duplicates count against its size
 * bound (they are shared, not cloned, but a document doubled 30 times is written out whole in the end);
 * its ReviewAborted is thrown, not answered as a result. With a chain (PatchChain), the result may be
 * edited in place by the chain's next patch.
 */
export function applyPatch(
  doc: JsonValue,
  patch: readonly Operation[],
  flavour: Flavour | ApplyOptions = 'rfc6902',
  guard?: ReviewGuard,
  chain?: PatchChain,
): ApplyResult {
  const options = resolveOptions(flavour);
  const rules = options.engine === 'rfc6902' ? undefined : evanphxRules(options);
  if (rules && !isContainer(doc)) {
    return { ok: false, kind: 'error', message: 'the document to patch must be a JSON object or array', opIndex: -1 };
  }
  const wc = chain ? chain.workingCopy(doc) : new WorkingCopy(doc);
  // Taken before any edit: a chain's working copy edits its containers in place.
  const root: RootNode | undefined = rules?.v5 && copiesRootSelf(patch) ? { self: wc.detach(wc.root) } : undefined;
  let i = 0;
  let copied = 0;
  try {
    for (; i < patch.length; i++) {
      const op = patch[i];
      if (guard) {
        guard.tick();
        if (op.op === 'copy') copied = countCopy(wc.root, op.from, copied, guard);
      }
      if (rules) applyEvanphxOperation(wc, op, rules, root);
      else applyRfcOperation(wc, op);
    }
  } catch (err) {
    chain?.end();
    if (err instanceof ReviewAborted) throw err;
    if (err instanceof OpFailure) return { ok: false, kind: err.kind, message: err.message, opIndex: i };
    // Not an expected failure (a malformed operation object, a stack overflow on a pathological value):
    // still answered as a value, with what went wrong.
    return { ok: false, kind: 'error', message: `operation ${i} could not be applied: ${(err as Error)?.message ?? String(err)}`, opIndex: i };
  }
  return { ok: true, doc: wc.root };
}

/**
 * Patches applied one after another, each to the previous one's result, which nothing else reads or
 * keeps until the chain ends (Kyverno: the elements of one foreach entry). The containers a patch of
 * the chain copied stay the chain's, and later patches edit them in place: n patches that each add a
 * member to a map of n members cost O(n), not n copies of the map. A patch given any other document
 * than the last result starts over. All or nothing then holds for the chain's input only: a failed
 * patch may have edited the last result, so drop it with the error (the chain ends there).
 */
export class PatchChain {
  private current: WorkingCopy | undefined;

  /** @internal The working copy for a patch of `doc`: the chain's own when `doc` is its last result. */
  workingCopy(doc: JsonValue): WorkingCopy {
    if (this.current !== undefined && this.current.root === doc) return this.current;
    return (this.current = new WorkingCopy(doc));
  }

  /** Ends the chain: its results become ordinary documents that nothing edits any more. */
  end(): void {
    this.current = undefined;
  }
}

/**
 * `decodePatch` then `applyPatch`; a malformed patch is an `error` result and nothing is applied.
 * evanphx v4 only notices a malformed operation when it reaches it, so for that engine the operations
 * before the bad one are tried first: if one of them fails (a failed `test` in particular, which
 * MutatingAdmissionPolicy treats as "discard the patch, no error"), that is the outcome, as in-tree
 * (kube-apiserver hands the operations a CEL expression built to v4's Apply unchecked).
 */
export function applyJsonPatch(doc: JsonValue, patch: unknown, flavour: Flavour | ApplyOptions = 'rfc6902', guard?: ReviewGuard): ApplyResult {
  const decoded = decodePatch(patch, flavour);
  if (decoded.ok) return applyPatch(doc, decoded.patch, flavour, guard);
  const bad = decoded.opIndex ?? -1;
  if (bad > 0 && resolveOptions(flavour).engine === 'evanphx-v4' && Array.isArray(patch)) {
    const prefix = decodePatch(patch.slice(0, bad), flavour);
    if (prefix.ok) {
      const before = applyPatch(doc, prefix.patch, flavour, guard);
      if (!before.ok) return before;
    }
  }
  return { ok: false, kind: 'error', message: decoded.message, opIndex: bad };
}

/** Whether a v5 `copy` of the patch reads the root's own node (see RootNode). Malformed ops fail later, in order. */
function copiesRootSelf(patch: readonly Operation[]): boolean {
  for (let i = 0; i < patch.length; i++) {
    const op = patch[i] as Operation | null;
    if (op?.op === 'copy' && typeof op.from === 'string' && fromRootSelf(op.from)) return true;
  }
  return false;
}

/** The bytes copied so far plus those of `from`'s value; over the guard's bound → ReviewAborted('size'). */
function countCopy(root: JsonValue, from: string, copied: number, guard: ReviewGuard): number {
  const value = valueAtPointer(root, from);
  if (value === undefined) return copied;
  const total = copied + jsonSizeUpTo(value, guard.maxValueBytes - copied, guard);
  guard.checkSize(total, 'the values copied by a JSON patch');
  return total;
}

/**
 * Rules by options object, for frozen ones only (a caller may change its own options between calls):
 * the named flavours are frozen constants, so they resolve once.
 */
const rulesByOptions = new WeakMap<Readonly<ApplyOptions>, EvanphxRules>();

let lastOptions: Readonly<ApplyOptions> | undefined;
let lastRules: EvanphxRules | undefined;

function evanphxRules(options: Readonly<ApplyOptions>): EvanphxRules {
  // Calls come in runs of one flavour: the last answer first, then the map.
  if (options === lastOptions) return lastRules!;
  if (!Object.isFrozen(options)) return resolveRules(options);
  let rules = rulesByOptions.get(options);
  if (rules === undefined) rulesByOptions.set(options, (rules = resolveRules(options)));
  lastOptions = options;
  lastRules = rules;
  return rules;
}

function resolveRules(options: Readonly<ApplyOptions>): EvanphxRules {
  const v5 = options.engine === 'evanphx-v5';
  return {
    v5,
    supportNegativeIndices: options.supportNegativeIndices ?? true,
    allowMissingPathOnRemove: v5 && (options.allowMissingPathOnRemove ?? false),
    ensurePathExistsOnAdd: v5 && (options.ensurePathExistsOnAdd ?? false),
    maxArrayPadding: options.maxArrayPadding ?? DEFAULT_MAX_ARRAY_PADDING,
  };
}
