/**
 * The JSON context variables are evaluated against (pkg/engine/context): `request`, `images`,
 * `serviceAccountName`/`serviceAccountNamespace`, `element…`, and the rule's context entries.
 * Entries are added copy-on-write, so a checkpoint is just the root object at that moment and
 * restoring it drops everything added since (rule entries after a rule, element entries after an
 * element) in O(1). Queries run under the review's guard, and their results are measured
 * (./measure.ts) before anything uses them.
 */
import { UNBOUNDED_GUARD, type ReviewGuard } from '../../guard/index.js';
import { getOwn, hasOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import type { SizeMemo } from '../jmespath/index.js';
import { measureValue } from '../measure.js';

/**
 * Evaluates a JMESPath expression against data; throws for syntax errors, unknown keys, … and the
 * guard's ReviewAborted (it should tick `guard` in its loops and check the sizes it builds).
 */
export type QueryFn = (expression: string, data: JsonValue, guard: ReviewGuard) => JsonValue;

export type Checkpoint = { readonly root: JsonObject };

export class JsonContext {
  private root: JsonObject;
  /** Estimated JSON size of the last query's result (./measure.ts). */
  lastResultSize = 0;

  constructor(
    private readonly search: QueryFn,
    initial: JsonObject,
    /** The review's bounds (a test of one module may leave it unbounded). */
    readonly guard: ReviewGuard = UNBOUNDED_GUARD,
    /**
     * Sizes of the arrays and objects measured so far in the review (./measure.ts): query results and the
     * resources rules built. Values are never changed once built (a strategic-merge chain edits its own
     * lists only until it settles, before anything queries or measures them), and each rule shares what it
     * did not change with the resource before it, so each subtree is walked once per review.
     */
    readonly sizes?: SizeMemo,
  ) {
    this.root = initial;
  }

  /** The whole context document (read-only by convention). */
  get data(): JsonObject {
    return this.root;
  }

  query(expression: string): JsonValue {
    return this.queryOn(expression, this.root);
  }

  /** JMESPath over another document (a `variable` entry's `value`, an API response). */
  queryOn(expression: string, data: JsonValue): JsonValue {
    const result = this.search(expression, data, this.guard);
    this.lastResultSize = measureValue(result, this.guard, `the value of ${expression.length > 80 ? expression.slice(0, 80) + '…' : expression}`, this.sizes);
    return result;
  }

  /** Sets `name` (dots make nested keys: `a.b` = `{a: {b: …}}`), replacing what was there. */
  set(name: string, value: JsonValue): void {
    this.root = setPath(this.root, name.split('.'), 0, value);
  }

  /** Sets several top-level names (no dots) with one copy of the root: the foreach element variables. */
  setTop(entries: readonly (readonly [string, JsonValue])[]): void {
    const out = copyObject(this.root);
    for (const [key, value] of entries) setOwn(out, key, value);
    this.root = out;
  }

  checkpoint(): Checkpoint {
    return { root: this.root };
  }

  restore(checkpoint: Checkpoint): void {
    this.root = checkpoint.root;
  }
}

/**
 * A shallow copy that new keys can be added to cheaply. (In V8 an object made by spread becomes very
 * slow to extend, and `Object.assign` would run the `__proto__` setter for a `__proto__` key, hence the
 * key-by-key copy in that rare case.)
 */
export function copyObject(source: JsonObject): JsonObject {
  if (!hasOwn(source, '__proto__')) return Object.assign({}, source);
  const out: JsonObject = {};
  for (const key of Object.keys(source)) setOwn(out, key, source[key]);
  return out;
}

/** Copy-on-write set along a dotted path. */
function setPath(target: JsonObject, path: string[], i: number, value: JsonValue): JsonObject {
  const out = copyObject(target);
  const key = path[i];
  if (i === path.length - 1) {
    setOwn(out, key, value);
  } else {
    const child = getOwn(target, key);
    setOwn(out, key, setPath(isJsonObject(child) ? child : {}, path, i + 1, value));
  }
  return out;
}
