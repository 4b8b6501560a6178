/**
 * The JSON context variables are evaluated against (pkg/engine/context): `request`, `images`,
 * `serviceAccountName`/`serviceAccountNamespace`, `element…`, and the rule's context entries (set when
 * a query first names them: ./deferred-loaders.ts). Entries are added copy-on-write, so a checkpoint is
 * just the root object at that moment and restoring it drops everything added since (rule entries after
 * a rule, element entries after an element) in O(1). A root nothing else holds yet (one this context made, not handed out since) takes
 * further entries in place: a rule's n entries would otherwise copy the root n times (n² for a policy
 * of thousands of entries). Queries run under the review's guard, and their results are measured
 * (./measure.ts) before anything uses them.
 */
import { UNBOUNDED_GUARD, type ReviewGuard } from '../../guard/index.js';
import { getOwn, hasOwn, isJsonObject, setOwn, shallowCopyObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { KyvernoRuleError } from '../errors.js';
import { goTrimSpace, isGoSpace } from '../../go/index.js';
import { JmesPathError, JmesPathRuntimeError, jsonSize, type SizeMemo } from '../jmespath/index.js';
import type { ContextBudget } from './context-budget.js';
import { DeferredLoaders, type DeferredEntry } from './deferred-loaders.js';
import { plainNamesIn } from './deferred-names.js';
import { splitVariableName } from './variable-names.js';

/**
 * Evaluates a JMESPath expression against data; throws for syntax errors, unknown keys, … and the
 * guard's ReviewAborted (it should tick `guard` in its loops and check the sizes it builds, remembering
 * them in `sizes`, the review's size memo, when given).
 */
export type QueryFn = (expression: string, data: JsonValue, guard: ReviewGuard, sizes?: SizeMemo) => JsonValue;

export type Checkpoint = {
  readonly root: JsonObject;
  readonly pendingObject: JsonValue | undefined;
  /** How many deferred entries were registered (checkpoints nest: a restore drops those after). */
  readonly deferred: number;
  /** How many deferred values were computed (a restore computes those computed since again). */
  readonly loads: number;
};

export class JsonContext {
  private root: JsonObject;
  /**
   * `request.object` as `setObject` gave it, put into the root only when the root is next read or
   * written: a rule that reads no variable leaves it unread, and so does the last rule of a review.
   * Undefined: nothing pending (a JSON value is never undefined).
   */
  private pendingObject: JsonValue | undefined = undefined;
  /** The root setElement last started from, at which nesting, and the root it made (never modified). */
  private elementBase: JsonObject | undefined;
  private elementNesting = -1;
  private elementRoot: JsonObject | undefined;
  /**
   * The root was made by this context and has not been handed out since (no checkpoint, `data`, element
   * base or query result holds it): its own members may be set in place.
   */
  private owned = false;
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
    const root = this.current();
    this.owned = false;
    return root;
  }

  query(expression: string): JsonValue {
    // `images` failed to load: a query naming it (as a deferred loader's name is found) fails with it.
    if (this.imagesError !== undefined && plainNamesIn(expression, 6).has('images')) throw new JmesPathRuntimeError(this.imagesError);
    this.deferred?.loadMatching(expression, this.addEntry);
    // pkg/engine/context evaluate.go Query, after the deferred loads: the query is trimmed with Go's
    // strings.TrimSpace (U+0085 and U+00A0 too, which JMESPath's lexer does not skip), and one that is
    // empty then is refused before compiling.
    if (expression.length === 0 || isGoSpace(expression.charCodeAt(0)) || isGoSpace(expression.charCodeAt(expression.length - 1))) {
      expression = goTrimSpace(expression);
      if (expression === '') throw new JmesPathRuntimeError('invalid query (nil)');
    }
    const root = this.current();
    // Only the current node (`@`) can put the root itself into a result (JMESPath has no other way to
    // name it): the root is then shared. Any other result is made of its members or new values.
    if (expression.includes('@')) this.owned = false;
    try {
      return this.queryOn(expression, root);
    } catch (error) {
      throw queryError(expression, error);
    }
  }

  /** The rule's and foreach's context entries, loaded when a query first names them (made by the first). */
  private deferred: DeferredLoaders | undefined;

  /**
   * Registers a context entry to load when a query first names it; its value is then set under `name`
   * as one key (dots are not paths: Kyverno pushes the entry name as one tag).
   */
  defer(name: string, load: () => JsonValue, merge: boolean, describe?: (message: string) => string): void {
    (this.deferred ??= new DeferredLoaders(this.guard)).add(name, load, merge, describe);
  }

  /**
   * The review's context size budget (./context-budget.ts), shared by every policy of the review; none:
   * entries are not counted.
   */
  budget: ContextBudget | undefined;

  /**
   * Sets an entry that has just loaded under its name, once the budget has room for it; else the load
   * fails (the loader stays loaded, as Kyverno's keeps the data it computed, but its value is not set).
   */
  private readonly addEntry = (entry: DeferredEntry): void => {
    const budget = this.budget;
    if (budget && !budget.take(entry, this.guard)) {
      const refused = budget.refusal(entry, this.guard);
      throw new KyvernoRuleError(entry.describe ? entry.describe(refused) : refused);
    }
    this.setEntry(entry);
  };

  /**
   * Sets a loaded entry again into a restored context: Kyverno loads it again, which counts against the
   * budget again; when there is no room, Kyverno logs the error and the context stays as restored.
   */
  private readonly reloadEntry = (entry: DeferredEntry): void => {
    if (this.budget && !this.budget.take(entry, this.guard)) return;
    this.setEntry(entry);
  };

  /** Sets a loaded entry's value under its name (unless it is there already). */
  private setEntry(entry: DeferredEntry): void {
    if (getOwn(this.current(), entry.name) === entry.value) return;
    this.writeMember(entry.name, entry.value, entry.merge);
  }

  /**
   * Why the resource's `images` could not be read (./images.ts), undefined when they could. Kyverno loads
   * `images` when a query names it (pkg/engine/context/deferred.go), so a failed load fails exactly those
   * queries; the others run.
   */
  imagesError: string | undefined = undefined;

  /** JMESPath over another document (a `variable` entry's `value`, an API response). */
  queryOn(expression: string, data: JsonValue): JsonValue {
    const result = this.search(expression, data, this.guard, this.sizes);
    const size = jsonSize(result, this.sizes, this.guard.maxValueBytes, this.guard);
    // measureValue's check, with its message built only when it fails.
    if (size > this.guard.maxValueBytes) this.guard.checkSize(size, `the value of ${expression.length > 80 ? expression.slice(0, 80) + '…' : expression}`);
    this.lastResultSize = size;
    return result;
  }

  /** Sets `name` (dots make nested keys: `a.b` = `{a: {b: …}}`), replacing what was there. */
  set(name: string, value: JsonValue): void {
    const path = name.split('.');
    this.writeMember(path[0], path.length === 1 ? value : setPath(this.childObject(path[0]), path, 1, value), false);
  }

  /**
   * A value given by name (context.AddVariable): the name splits as ./variable-names.ts says (a name it
   * refuses is split at every dot), and a map merges into the map already there instead of replacing it.
   */
  addVariable(name: string, value: JsonValue): void {
    const path = splitVariableName(name) ?? name.split('.');
    if (path.length === 1) this.writeMember(path[0], value, true);
    else this.writeMember(path[0], mergePath(this.childObject(path[0]), path, 1, value), false);
  }

  /** The root's member `key` when it is a map, else an empty one (what a path below it starts from). */
  private childObject(key: string): JsonObject {
    const child = getOwn(this.current(), key);
    return isJsonObject(child) ? child : {};
  }

  /**
   * Sets the root's member `key` to `value` (merged into the map there when `merge` and both are maps),
   * in place when the root is the context's own, else on a copy of it.
   */
  private writeMember(key: string, value: JsonValue, merge: boolean): void {
    const root = this.current();
    const out = this.owned ? root : shallowCopyObject(root);
    const existing = getOwn(root, key);
    setOwn(out, key, merge && isJsonObject(value) && isJsonObject(existing) ? mergeMaps(value, existing) : value);
    this.root = out;
    this.owned = true;
  }

  /** `set('request.object', object)`, done when the context is next read or written. */
  setObject(object: JsonValue): void {
    this.pendingObject = object;
  }

  /** The root with the pending `request.object` in it. */
  private current(): JsonObject {
    if (this.pendingObject !== undefined) {
      this.root = withObject(this.root, this.pendingObject);
      this.pendingObject = undefined;
      this.owned = true;
    }
    return this.root;
  }

  /** The foreach element variables of nesting level `nesting`, with one copy of the root. */
  setElement(nesting: number, element: JsonValue, index: number): void {
    const names = (ELEMENT_NAMES[nesting] ??= [`element${nesting}`, `elementIndex${nesting}`]);
    const base = this.current();
    // The next element of the same loop (restored to the same root): the last element's root has every
    // member already, so a spread copy of it (V8's fastest) with those four set again gives the same object.
    const next = base === this.elementBase && nesting === this.elementNesting;
    const out = next ? { ...this.elementRoot! } : shallowCopyObject(base);
    // Plain sets: these four names are never `__proto__`.
    out.element = element;
    out.elementIndex = index;
    out[names[0]] = element;
    out[names[1]] = index;
    if (!next) {
      this.elementBase = base;
      this.elementRoot = out;
      this.elementNesting = nesting;
    }
    this.root = out;
    // The next element's root is a copy of this one: an entry set in place would carry over.
    this.owned = false;
  }

  checkpoint(): Checkpoint {
    this.owned = false;
    return { root: this.root, pendingObject: this.pendingObject, deferred: this.deferred?.count ?? 0, loads: this.deferred?.loadCount ?? 0 };
  }

  /**
   * Back to the checkpoint: entries registered since are dropped; entries registered before it that have
   * loaded since are loaded again into the restored context, as Kyverno reloads them (one whose value no
   * longer computes is left out: ./deferred-loaders.ts reset), and every entry may be tried again.
   */
  restore(checkpoint: Checkpoint): void {
    this.root = checkpoint.root;
    this.pendingObject = checkpoint.pendingObject;
    this.owned = false;
    this.deferred?.reset(checkpoint.deferred, checkpoint.loads, checkpoint, this.reloadEntry);
  }
}


/**
 * What Query says of its own failures (pkg/engine/context/evaluate.go), which users read in rule messages:
 * `incorrect query <q>: <error>` when the query does not compile, `JMESPath query failed: <error>` when
 * its search fails. A deferred entry's load error (thrown before) and the guard's aborts stay as they are.
 */
function queryError(expression: string, error: unknown): unknown {
  if (!(error instanceof JmesPathError)) return error;
  const message = error.kind === 'syntax' ? `incorrect query ${expression}: ${error.message}` : `JMESPath query failed: ${error.message}`;
  return new JmesPathError(error.kind, message);
}

const REQUEST_OBJECT: readonly string[] = Object.freeze(['request', 'object']);

/** `element<N>` and `elementIndex<N>` by nesting level N. */
const ELEMENT_NAMES: [string, string][] = [];

/**
 * setPath(root, ['request', 'object'], object), done after most rules: copies made by spread, which
 * V8 clones whole (the members set already exist, so the copies stay fast), instead of member by member.
 */
function withObject(root: JsonObject, object: JsonValue): JsonObject {
  const request = getOwn(root, 'request');
  if (!isJsonObject(request) || !hasOwn(request, 'object')) return setPath(root, REQUEST_OBJECT, 0, object);
  const copy = { ...request };
  copy.object = object;
  const out = { ...root };
  out.request = copy;
  return out;
}

/** Copy-on-write set along a dotted path. */
function setPath(target: JsonObject, path: readonly string[], i: number, value: JsonValue): JsonObject {
  const out = shallowCopyObject(target);
  const key = path[i];
  if (i === path.length - 1) {
    setOwn(out, key, value);
  } else {
    const child = getOwn(target, key);
    setOwn(out, key, setPath(isJsonObject(child) ? child : {}, path, i + 1, value));
  }
  return out;
}

/** Copy-on-write mergeMaps of `value` pushed under `path`: maps merge key by key, anything else replaces. */
function mergePath(target: JsonObject, path: readonly string[], i: number, value: JsonValue): JsonObject {
  const out = shallowCopyObject(target);
  const key = path[i];
  const existing = getOwn(target, key);
  if (i < path.length - 1) setOwn(out, key, mergePath(isJsonObject(existing) ? existing : {}, path, i + 1, value));
  else setOwn(out, key, isJsonObject(value) && isJsonObject(existing) ? mergeMaps(value, existing) : value);
  return out;
}

function mergeMaps(source: JsonObject, target: JsonObject): JsonObject {
  const out = shallowCopyObject(target);
  for (const key of Object.keys(source)) {
    const value = source[key];
    const existing = getOwn(target, key);
    setOwn(out, key, isJsonObject(value) && isJsonObject(existing) ? mergeMaps(value, existing) : value);
  }
  return out;
}
