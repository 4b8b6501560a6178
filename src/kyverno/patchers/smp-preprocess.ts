/**
 * Anchor pre-processing of a `patchStrategicMerge` overlay against the resource
 * (pkg/engine/mutate/patch/strategicPreprocessing.go), before the plain strategic merge:
 *
 * - `+(key)`: removed when the resource already has `key` at that level, else unwrapped to `key`;
 * - `(key): pattern`: the resource must have `key` matching `pattern` (validate pattern language); in a
 *   map a failure cancels the whole overlay (ConditionFailure → the rule is skipped); in a list of maps
 *   each overlay item is tried against every resource item (those a literal condition cannot hold for
 *   are left out by an index, ./condition-candidates.ts), and for each matching item that has a `name` a
 *   copy of the overlay item without anchors and with that name is appended;
 * - `<(key): pattern`: as `()`, but a failure anywhere cancels the rule unless some list item passed;
 * - finally condition keys are removed, and maps or lists left empty by that are removed too.
 *
 * The validate-only anchors `X()`, `=()` and `^()` are refused with a clear error.
 * Works on a private copy; the caller's overlay is never modified.
 *
 * Order: Kyverno json.Marshals the (substituted) overlay, a Go map, before kyaml parses it
 * (ProcessStrategicMergePatch), so every map's keys reach the walk sorted in Go's string order, and that is
 * the order in which it resolves `+()` keys, checks conditions and walks members (the first failure
 * stops the walk: a `()` failure skips a list item, a `<()` one the rule). kyaml keeps a key renamed onto
 * another one as a second key; reads find the first (RNode.Field), so the key earlier in that order
 * keeps its value. The keys that stay keep the order they were written in, which is only cosmetic
 * (Kyverno's result is a Go map).
 */
import { OutcomeError, UNBOUNDED_GUARD, type ReviewGuard } from '../../guard/index.js';
import { cloneJson, getOwn, hasOwn, isJsonObject, setOwn, sliceArray, type JsonObject, type JsonValue } from '../../json/index.js';
import { isConditionLike, isValidateOnly, parseAnchor, type Anchor } from './anchors.js';
import { KyvernoRuleError } from '../errors.js';
import { matchPattern } from '../match/match-pattern.js';
import { asConditionOperand, ConditionCandidates, type KeyedItemLookup } from './condition-candidates.js';
import { deepTest } from '../context/walk.js';
import { compareStrings } from '../../go/index.js';

/*
 * The two failures below are control flow, thrown once per resource item a list overlay item does not
 * match (n² times in a foreach over a list of n): OutcomeErrors, capturing no stack trace (capturing one
 * each time was most of the work: a foreach with a `(name)` anchor over 700 containers took 3.7 s).
 */

/** A `()` condition did not hold: the overlay does not apply (rule skipped, no error). */
export class ConditionFailure extends OutcomeError {
  override name = 'ConditionFailure';
  constructor(reason: string) {
    super(`condition failed: ${reason}`);
  }
}

/** A `<()` global condition did not hold: the rule is skipped. */
export class GlobalConditionFailure extends OutcomeError {
  override name = 'GlobalConditionFailure';
  constructor(reason: string) {
    super(`global condition failed: ${reason}`);
  }
}

/**
 * How a foreach's chain of strategic merges lets the anchors read the lists it keeps aside (see Walk):
 * `beforeReading` writes them, `itemByKey` finds an item of one by its merge key.
 */
export interface ChainLists {
  readonly beforeReading: () => void;
  readonly itemByKey: KeyedItemLookup;
}

/**
 * The overlay with its anchors resolved against `resource`. Throws ConditionFailure /
 * GlobalConditionFailure when the overlay does not apply, KyvernoRuleError for a broken overlay.
 * `anchors`: mayHaveAnchors(overlay), when the caller has it already.
 */
export function preprocessOverlay(
  overlay: JsonValue,
  resource: JsonValue,
  guard: ReviewGuard = UNBOUNDED_GUARD,
  anchors = mayHaveAnchors(overlay),
  chainLists?: ChainLists,
): JsonValue {
  // Most overlays have no anchor at all: then all that changes is that emptied containers go.
  if (!anchors) return isJsonObject(overlay) ? pruneEmpty(overlay, true) ?? {} : overlay;
  rejectValidateOnlyAnchors(overlay, []);
  const pattern = processNode(cloneJson(overlay), resource, new Walk(guard, chainLists));
  return isJsonObject(pattern) ? deleteConditionKeys(pattern) : pattern;
}

/** Might a key (or a scalar, which Kyverno also inspects) be an anchor? Only then is the resource read. */
export const mayHaveAnchors = deepTest((s) => s.includes('('));

/**
 * What anchor removal does to an overlay without anchors (deleteAnchors in Kyverno): maps left with
 * nothing are dropped, lists emptied by that are dropped; the same object when nothing goes.
 * Undefined means "remove this node". The top level stays even when empty.
 */
function pruneEmpty(value: JsonValue, top = false): JsonValue | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0) return value;
    let out: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = pruneEmpty(value[i]);
      if (next !== value[i] && !out) out = sliceArray(value, 0, i);
      if (out && next !== undefined) out.push(next);
    }
    if (!out) return value;
    return out.length === 0 ? undefined : out;
  }
  if (!isJsonObject(value)) return value;
  const keys = Object.keys(value);
  let out: JsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const child = value[keys[i]];
    const next = pruneEmpty(child);
    if (next !== child && !out) {
      out = {};
      for (let j = 0; j < i; j++) setOwn(out, keys[j], value[keys[j]]);
    }
    if (out && next !== undefined) setOwn(out, keys[i], next);
  }
  const result = out ?? value;
  return !top && Object.keys(result).length === 0 ? undefined : result;
}

/** Frozen overlay subtrees (the compiled policies' own, when nothing was substituted in them) found free of validate-only anchors. */
const withoutValidateOnly = new WeakSet<object>();

function rejectValidateOnlyAnchors(value: JsonValue, path: string[]): void {
  if (typeof value !== 'object' || value === null || withoutValidateOnly.has(value)) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(String(i));
      rejectValidateOnlyAnchors(value[i], path);
      path.pop();
    }
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      path.push(key);
      const anchor = key.includes('(') ? parseAnchor(key) : undefined;
      if (isValidateOnly(anchor)) {
        throw new KyvernoRuleError(
          `anchor "${key}" at /${path.join('/')} is a validate-only (${anchor!.type}) anchor; ` +
            'mutate overlays support +(key), (key) and <(key)',
        );
      }
      rejectValidateOnlyAnchors(value[key], path);
      path.pop();
    }
  }
  // Reached only when nothing below threw.
  if (Object.isFrozen(value)) withoutValidateOnly.add(value);
}

/**
 * What one pre-processing walk carries: the review's guard, what must happen before it first reads
 * into a list of the resource or below a map it compares (`chainLists.beforeReading`: a foreach's
 * strategic merges keep the lists they edit aside until their chain settles, so the anchors of an
 * overlay that only look at maps — `<(dnsPolicy)`, `+(annotation)` — leave the chain as it is, and each
 * element's merge does not index the whole list again), and the resource lists' indexes for conditions.
 */
class Walk {
  private pending: (() => void) | undefined;
  /** The resource items a list item's top conditions may hold for (see ./condition-candidates.ts). */
  readonly candidates: ConditionCandidates;
  constructor(
    readonly guard: ReviewGuard,
    chainLists: ChainLists | undefined,
  ) {
    this.pending = chainLists?.beforeReading;
    this.candidates = new ConditionCandidates(guard, chainLists?.itemByKey);
  }

  /** Called before the walk reads a list of the resource, or a value that may hold one. */
  readingLists(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    pending();
  }
}

/**
 * Resolves the anchors of a node of the private copy against the resource: lists are edited in place,
 * a map is given back edited in place or, when `+()` anchors changed its keys, rebuilt (the caller puts
 * what it gets back in the node's place).
 */
function processNode(pattern: JsonValue, resource: JsonValue | undefined, walk: Walk): JsonValue {
  walk.guard.tick();
  if (isJsonObject(pattern)) return walkMap(pattern, resource, walk);
  if (Array.isArray(pattern) && pattern.length > 0 && isJsonObject(pattern[0])) processListOfMaps(pattern, resource, walk);
  return pattern;
}

/** processNode of `pattern[key]`, put back in place when it was rebuilt. */
function processMember(pattern: JsonObject, key: string, resource: JsonValue | undefined, walk: Walk): void {
  const child = pattern[key];
  const next = processNode(child, isJsonObject(resource) ? getOwn(resource, key) : undefined, walk);
  if (next !== child) setOwn(pattern, key, next);
}

/** The anchors a mutate overlay acts on: `()`, `<()` and `+()`. */
const isMutateAnchor = (a: Anchor) => isConditionLike(a) || a.type === 'addIfNotPresent';
const isGlobalAnchor = (a: Anchor) => a.type === 'global';

function walkMap(map: JsonObject, resource: JsonValue | undefined, walk: Walk): JsonObject {
  if (!hasAnchorKey(map)) {
    // No anchor at this level (the levels above an anchored list item, usually): only the children.
    // (The pattern is a private copy, whose members processMember only replaces, never adds.)
    for (const key of walkOrder(map)) processMember(map, key, resource, walk);
    return map;
  }
  const pattern = resolveAddIfNotPresent(map, resource);
  checkConditions(pattern, resource, walk);
  for (const key of walkOrder(pattern, pattern === map ? undefined : map)) {
    const anchor = parseAnchor(key);
    if (anchor && isMutateAnchor(anchor)) continue;
    processMember(pattern, key, resource, walk);
  }
  return pattern;
}

/**
 * The keys of an overlay map in the order Kyverno walks them: Go's string order (see the header). Only
 * members holding a map or a list can fail, so a map with at most one of them is walked as it is.
 * `written`: the map as written, when its `+()` keys were renamed: kyaml renames a key where it stands,
 * so `+(b)` is walked as `b` at the place of `+(b)` in that order, before `a` ('+' sorts before letters).
 */
function walkOrder(map: JsonObject, written?: JsonObject): string[] {
  const keys = Object.keys(map);
  let nested = 0;
  for (let i = 0; i < keys.length && nested < 2; i++) {
    const v = map[keys[i]];
    if (typeof v === 'object' && v !== null) nested++;
  }
  if (nested < 2) return keys;
  if (written === undefined) return keys.sort(compareStrings);
  const source = writtenKeys(written);
  return keys.sort((a, b) => compareStrings(source.get(a) ?? a, source.get(b) ?? b));
}

/** Each key a `+(key)` of `written` was renamed to, with that `+(key)` (the first in Go's order when several meet). */
function writtenKeys(written: JsonObject): Map<string, string> {
  const source = new Map<string, string>();
  for (const key in written) {
    const anchor = parseAnchor(key);
    if (anchor?.type !== 'addIfNotPresent' || hasOwn(written, anchor.key)) continue;
    const known = source.get(anchor.key);
    if (known === undefined || compareStrings(key, known) < 0) source.set(anchor.key, key);
  }
  return source;
}

function processListOfMaps(pattern: JsonValue[], resource: JsonValue | undefined, walk: Walk): void {
  let resourceItems: JsonValue[];
  if (resource === undefined || resource === null) resourceItems = [];
  else if (Array.isArray(resource)) resourceItems = resource;
  else throw new KyvernoRuleError('the overlay has a list where the resource has a ' + typeName(resource));
  for (const item of pattern.slice()) {
    if (!hasAnchors(item, isMutateAnchor)) continue;
    const global = hasAnchors(item, isGlobalAnchor);
    let globalPassed = false;
    // The last global failure: thrown, or (found by the precheck below) its reason.
    let lastGlobalFailure: GlobalConditionFailure | string | undefined;
    const precheck = !global && conditionsAtTop(item);
    const globalPrecheck = global && globalsAtTop(item);
    if (resourceItems === resource) walk.readingLists(); // its items (and length) may be kept aside
    // With top conditions, only the resource items that may meet them: an index finds those a literal
    // condition names (one, for a foreach element's overlay naming its element), not m checks each.
    const tried = precheck ? walk.candidates.of(resourceItems, item as JsonObject) : resourceItems;
    for (const resourceItem of tried) {
      // The item's own conditions first, on the item itself: a resource item they reject costs no copy
      // of the item and no throw. Each pair tried is work the review's deadline must be able to stop
      // (n × m of them when no condition is literal text).
      walk.guard.tick();
      if (precheck && conditionFailure(item as JsonObject, resourceItem, 'condition', walk, false) !== undefined) continue;
      // Likewise the item's own global conditions, checked first by walkMap: a failure is remembered
      // without a copy or a throw (n × m of them for a foreach over n containers).
      if (globalPrecheck) {
        const failure = conditionFailure(item as JsonObject, resourceItem, 'global', walk);
        if (failure !== undefined) {
          lastGlobalFailure = failure;
          continue;
        }
      }
      // A fresh copy per resource item: `+()` decisions made for one item must not leak into the next.
      let candidate = cloneJson(item);
      try {
        candidate = processNode(candidate, resourceItem, walk);
      } catch (error) {
        if (error instanceof ConditionFailure) continue;
        if (error instanceof GlobalConditionFailure) {
          lastGlobalFailure = error;
          continue;
        }
        throw error;
      }
      if (global) globalPassed = true;
      else appendNamedCopy(pattern, candidate, resourceItem);
    }
    // Only where the resource has no such field: a field holding null is a node for kyaml (`resource ==
    // nil` is false), a list without items, so an item's global condition there decides nothing.
    if (resource === undefined) {
      try {
        processNode(cloneJson(item), undefined, walk);
        if (global) globalPassed = true;
      } catch (error) {
        if (!(error instanceof ConditionFailure)) throw error;
      }
    }
    if (!globalPassed && lastGlobalFailure !== undefined) {
      throw typeof lastGlobalFailure === 'string' ? new GlobalConditionFailure(lastGlobalFailure) : lastGlobalFailure;
    }
  }
}

/** A matched resource item with a name gets its own overlay item, targeted by that name. */
function appendNamedCopy(pattern: JsonValue[], candidate: JsonValue, resourceItem: JsonValue): void {
  const name = isJsonObject(resourceItem) ? getOwn(resourceItem, 'name') : undefined;
  if (name === undefined || name === null || name === '') return;
  const stripped = deleteAnchors(candidate, true);
  if (stripped === GONE) return;
  if (isJsonObject(stripped)) setOwn(stripped, 'name', name);
  pattern.push(stripped);
}

/**
 * The map with its `+(key)` anchors resolved against the resource's map: removed where the resource has
 * `key`, else renamed to `key` where it stands (see editAnchorKeys).
 */
function resolveAddIfNotPresent(map: JsonObject, resource: JsonValue | undefined): JsonObject {
  return editAnchorKeys(map, isAddIfNotPresent, addedUnlessPresent, resource);
}

const isAddIfNotPresent = (anchor: Anchor) => anchor.type === 'addIfNotPresent';
const addedUnlessPresent = (anchor: Anchor, resource: JsonValue | undefined) => (isJsonObject(resource) && hasOwn(resource, anchor.key) ? undefined : anchor.key);

/**
 * The map with each anchor key that `edits` picks renamed to what `newKey` gives, or removed when it gives
 * undefined; the map itself when `edits` picks none. kyaml edits a map whose keys may repeat: the anchors
 * are taken from its keys before any edit, in Go's string order, and each is found (Field) or cleared
 * (Clear) at the first key that reads as it then, a renamed key keeping its place; so a new key that reads
 * as an anchor is edited when its turn comes, and of keys that meet, the one first in Go's order is the one
 * the merge reads (later ones stay, unread). The rebuilt map keeps the written order of its keys, each
 * where the first of its kind was written. Without a meeting, all this is the same as editing each key
 * where it stands, done in one pass.
 */
function editAnchorKeys(
  map: JsonObject,
  edits: (anchor: Anchor) => boolean,
  newKey: (anchor: Anchor, resource: JsonValue | undefined) => string | undefined,
  resource?: JsonValue,
): JsonObject {
  let found = false;
  let oneByOne = false;
  for (const key in map) {
    const anchor = parseAnchor(key);
    if (!anchor || !edits(anchor)) continue;
    found = true;
    if (anchor.key.includes('(')) oneByOne = true;
  }
  if (!found) return map;
  if (!oneByOne) {
    // One pass, unless two keys meet.
    const out: JsonObject = {};
    let met = false;
    for (const key in map) {
      const anchor = parseAnchor(key);
      const to = anchor && edits(anchor) ? newKey(anchor, resource) : key;
      if (to === undefined) continue;
      if (hasOwn(out, to)) {
        met = true;
        break;
      }
      setOwn(out, to, map[key]);
    }
    if (!met) return out;
  }
  return editAsKyaml(map, edits, newKey, resource);
}

interface KeyedEntry {
  key: string;
  /** Where it was written. */
  readonly at: number;
  readonly value: JsonValue;
}

/** editAnchorKeys on the map as kyaml holds it: keys in Go's order, repeats allowed (see there). */
function editAsKyaml(
  map: JsonObject,
  edits: (anchor: Anchor) => boolean,
  newKey: (anchor: Anchor, resource: JsonValue | undefined) => string | undefined,
  resource: JsonValue | undefined,
): JsonObject {
  const entries: KeyedEntry[] = Object.keys(map).map((key, at) => ({ key, at, value: map[key] }));
  entries.sort((a, b) => compareStrings(a.key, b.key));
  const anchors: [string, Anchor][] = [];
  for (const e of entries) {
    const anchor = parseAnchor(e.key);
    if (anchor && edits(anchor)) anchors.push([e.key, anchor]);
  }
  for (const [text, anchor] of anchors) {
    const i = entries.findIndex((e) => e.key === text);
    if (i < 0) continue;
    const to = newKey(anchor, resource);
    if (to === undefined) entries.splice(i, 1);
    else entries[i].key = to;
  }
  // Each key's first entry is what the merge reads; it stands where the first of its entries was written.
  const firsts = new Map<string, { at: number; value: JsonValue }>();
  for (const e of entries) {
    const first = firsts.get(e.key);
    if (!first) firsts.set(e.key, { at: e.at, value: e.value });
    else if (e.at < first.at) first.at = e.at;
  }
  const out: JsonObject = {};
  for (const [key, { value }] of [...firsts].sort((a, b) => a[1].at - b[1].at)) setOwn(out, key, value);
  return out;
}

function hasAddIfNotPresent(map: JsonObject): boolean {
  for (const key in map) if (parseAnchor(key)?.type === 'addIfNotPresent') return true;
  return false;
}

function checkConditions(pattern: JsonObject, resource: JsonValue | undefined, walk: Walk): void {
  const failure = conditionFailure(pattern, resource, 'global', walk);
  if (failure) throw new GlobalConditionFailure(failure);
  const local = conditionFailure(pattern, resource, 'condition', walk);
  if (local) throw new ConditionFailure(local);
}

/**
 * Whether a list item's global conditions can be checked on the item before it is copied, as walkMap
 * checks them (in Go's order, conditionFailure resolving nothing): a map with `<()` keys at its top, none
 * holding `+()` anchors (resolved in place by the check), and no `+()` key that could make one.
 */
function globalsAtTop(item: JsonValue): boolean {
  if (!isJsonObject(item)) return false;
  let found = false;
  for (const key in item) {
    const anchor = parseAnchor(key);
    if (anchor?.type === 'global') {
      const value = item[key];
      if (isJsonObject(value) && hasAddIfNotPresent(value)) return false;
      found = true;
    } else if (anchor?.type === 'addIfNotPresent' && anchor.key.includes('(')) return false;
  }
  return found;
}

/**
 * Whether a list item's conditions can be checked on the item before it is copied: a map with `()` keys
 * at its top, and no `+()` key whose resolution could itself make one (`+((name))`), so that walkMap's
 * checkConditions would check the same keys with the same values.
 */
function conditionsAtTop(item: JsonValue): boolean {
  if (!isJsonObject(item)) return false;
  let found = false;
  for (const key in item) {
    const anchor = parseAnchor(key);
    if (anchor?.type === 'condition') found = true;
    else if (anchor?.type === 'addIfNotPresent' && anchor.key.includes('(')) return false;
  }
  return found;
}

/**
 * The first `type` anchor of `pattern` the resource fails, as text. A condition whose value holds `+()`
 * anchors only asks for the key; `resolve`: its value is then resolved against the resource in place
 * (false leaves `pattern` untouched).
 */
function conditionFailure(pattern: JsonObject, resource: JsonValue | undefined, type: Anchor['type'], walk: Walk, resolve = true): string | undefined {
  // In Go's order (the first failure is the one reported) when it resolves; a check that only asks
  // whether one fails (a list item's precheck, per resource item) needs no order.
  for (const key of resolve ? conditionOrder(pattern, type) : Object.keys(pattern)) {
    const anchor = parseAnchor(key);
    if (anchor?.type !== type) continue;
    if (!isJsonObject(resource) || !hasOwn(resource, anchor.key)) {
      return `could not found "${anchor.key}" key in the resource`;
    }
    const expected = pattern[key];
    const actual = resource[anchor.key];
    // A condition holding `+()` anchors only asks for the key to exist; the anchors then apply inside.
    if (isJsonObject(expected) && hasAddIfNotPresent(expected)) {
      if (!resolve) continue;
      const resolved = resolveAddIfNotPresent(expected, actual);
      if (resolved !== expected) setOwn(pattern, key, resolved);
      continue;
    }
    // A map or list compared may hold lists (a map reached through maps only is read as it is).
    if (typeof actual === 'object' && actual !== null) walk.readingLists();
    if (matchPattern(asConditionOperand(actual), asConditionOperand(expected), walk.guard) !== 'pass') {
      return `"${anchor.key}" does not match ${JSON.stringify(expected)}`;
    }
  }
  return undefined;
}

/** The keys of `pattern`, in Go's order when two or more are `type` anchors (filterKeys over sorted keys). */
function conditionOrder(pattern: JsonObject, type: Anchor['type']): string[] {
  const keys = Object.keys(pattern);
  let anchors = 0;
  for (let i = 0; i < keys.length && anchors < 2; i++) if (keys[i].includes('(') && parseAnchor(keys[i])?.type === type) anchors++;
  return anchors < 2 ? keys : keys.sort(compareStrings);
}

/** Does the node hold an anchor accepted by `accept` (or a scalar that reads as a condition anchor)? */
function hasAnchors(node: JsonValue, accept: (a: Anchor) => boolean): boolean {
  if (typeof node === 'string') return isConditionLike(parseAnchor(node));
  if (Array.isArray(node)) return node.some((n) => hasAnchors(n, accept));
  if (!isJsonObject(node)) return false;
  for (const key in node) {
    const anchor = parseAnchor(key);
    if (anchor && accept(anchor)) return true;
    const value = node[key];
    if (value !== null && hasAnchors(value, accept)) return true;
  }
  return false;
}

/**
 * What deleteAnchors gives for a node that goes away because nothing but anchors (or emptied
 * containers) was in it, so that an empty leftover does not wipe resource data.
 */
const GONE = Symbol('gone');

/**
 * Removes condition keys (top level: only conditions on scalars and what they empty). The pattern is
 * a private copy: members are stripped in place, and a map that loses keys is rebuilt without them
 * (the new map is returned), which costs less than deleting keys from it.
 */
function deleteConditionKeys(pattern: JsonObject): JsonObject {
  const { gone } = stripChildren(pattern, isConditionKey);
  return gone ? without(pattern, gone) : pattern;
}

/** Strips condition anchors: the node (or the map rebuilt without some keys), or GONE. */
function deleteAnchors(node: JsonValue, deleteScalar: boolean): JsonValue | typeof GONE {
  if (Array.isArray(node)) return deleteAnchorsInList(node);
  if (isJsonObject(node)) return deleteAnchorsInMap(node);
  return deleteScalar ? GONE : node;
}

function deleteAnchorsInMap(node: JsonObject): JsonObject | typeof GONE {
  let map = node;
  // A level without an anchor key (most) goes straight to what its children leave.
  if (hasAnchorKey(node)) {
    const anchored = stripChildren(node, ALWAYS, isConditionKey);
    if (anchored.gone) map = without(node, anchored.gone);
    if (anchored.kept) map = unwrapConditionKeys(map);
  }
  const children = stripChildren(map, NEVER);
  if (!children.kept) return GONE;
  return children.gone ? without(map, children.gone) : map;
}

/** `(key)` and `<(key)` keys renamed to `key` where they stand (see editAnchorKeys). */
function unwrapConditionKeys(map: JsonObject): JsonObject {
  return editAnchorKeys(map, isConditionLike, unwrapped);
}

const unwrapped = (anchor: Anchor) => anchor.key;

/**
 * Deletes the anchors of `map`'s children (those `selected` picks, or all), a scalar child going too when
 * `deleteScalar(key)`: a child that stays is set back in place when it changed; the keys of those that
 * went are returned, and whether any child stayed.
 */
function stripChildren(map: JsonObject, deleteScalar: (key: string) => boolean, selected?: (key: string) => boolean): { gone?: string[]; kept: boolean } {
  let kept = false;
  let gone: string[] | undefined;
  for (const key in map) {
    if (selected && !selected(key)) continue;
    const child = map[key];
    const stripped = deleteAnchors(child, deleteScalar(key));
    if (stripped === GONE) {
      (gone ??= []).push(key);
    } else {
      kept = true;
      if (stripped !== child) setOwn(map, key, stripped);
    }
  }
  return gone ? { gone, kept } : { kept };
}

const isConditionKey = (key: string) => isConditionLike(parseAnchor(key));
const ALWAYS = () => true;
const NEVER = () => false;

function deleteAnchorsInList(node: JsonValue[]): JsonValue[] | typeof GONE {
  if (node.length === 0) return node;
  const kept: JsonValue[] = [];
  for (let i = 0; i < node.length; i++) {
    const element = node[i];
    if (hasAnchors(element, isMutateAnchor)) continue;
    const stripped = deleteAnchors(element, false);
    if (stripped !== GONE) kept.push(stripped);
  }
  // Not splice(0, n, ...kept): a list substituted from a review may be longer than a call takes arguments.
  node.length = 0;
  for (const element of kept) node.push(element);
  return kept.length === 0 ? GONE : node;
}

/** A new map with the members of `map` but `gone`, in order. */
function without(map: JsonObject, gone: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key in map) if (!gone.includes(key)) setOwn(out, key, map[key]);
  return out;
}

/** Does a map of the overlay have a key that may be an anchor (only a key holding `(` can be, parseAnchor)? A loop: no key array. */
function hasAnchorKey(map: JsonObject): boolean {
  for (const key in map) if (key.includes('(')) return true;
  return false;
}

function typeName(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value === 'object' ? 'map' : typeof value;
}
