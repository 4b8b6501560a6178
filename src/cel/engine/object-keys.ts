/**
 * The keys of a JSON object as CEL reads a map from a document, with those of the last few large ones
 * kept for the evaluation in progress. A loop reads the same map over and over (a comprehension over it,
 * `size()`, `in`, `==` inside another comprehension), and `Object.keys` walks every key each time, where
 * cel-go's `len` of a map is one read and each step of the loop costs 1: a Pod of 150,000 labels
 * (2 MB) under `labels.all(k, labels.size() > 0)` listed 150,000 keys per step, 140 s of one review
 * inside the cost limit, the deadline looked at only every 20,000 cost units.
 *
 * Documents are not changed while an expression is evaluated (CEL builds new values), but the engines
 * edit working copies between evaluations: keys are kept only while an evaluation runs, and each
 * outermost evaluation starts with nothing kept (startEvaluation / endEvaluation). The arrays handed out
 * are shared: read them, never change them.
 */

/** Below this many keys an object's keys are listed again rather than kept. */
const KEPT_FROM = 64;

/** Two objects, as a loop over one map may read another in its body. */
let keptA: object | undefined;
let keysA: readonly string[] = [];
let keptB: object | undefined;
let keysB: readonly string[] = [];

/** Evaluations in progress (a lazily evaluated variable runs inside an expression). */
let evaluating = 0;

export function objectKeys(o: object): readonly string[] {
  if (o === keptA) return keysA;
  if (o === keptB) return keysB;
  const keys = Object.keys(o);
  if (evaluating > 0 && keys.length >= KEPT_FROM) {
    keptB = keptA;
    keysB = keysA;
    keptA = o;
    keysA = keys;
  }
  return keys;
}

/** Called as an evaluation starts: an outermost one forgets what was kept (the documents may have been edited since). */
export function startEvaluation(): void {
  if (evaluating++ === 0) forget();
}

/** Called as an evaluation ends: once the outermost one has, nothing is kept. */
export function endEvaluation(): void {
  if (--evaluating === 0) forget();
}

function forget(): void {
  keptA = keptB = undefined;
  keysA = keysB = [];
}
