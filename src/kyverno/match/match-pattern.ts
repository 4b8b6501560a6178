/**
 * A resource against a pattern tree, as Kyverno's validate.MatchPattern walks it
 * (pkg/engine/validate/validate.go with the anchor handlers of pkg/engine/anchor and the metadata
 * wildcards of pkg/engine/wildcards). Mutate overlays use it for the value of a condition anchor.
 *
 * Go passes errors up and classifies them by their text: an error whose message holds "conditional
 * anchor mismatch" or "global anchor mismatch" is a skip, one holding "negation anchor matched" a fail,
 * and wrapping keeps the inner text. `Failure` keeps those marks instead of the text.
 *
 * The walk ticks the review's guard once per pattern node it compares: a condition anchor's pattern may
 * walk a large part of the resource, once per list item it is tried on.
 */
import { getOwn, hasOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { compareStrings, hasWildcard, wildcardMatch } from '../../go/index.js';
import { UNBOUNDED_GUARD, type ReviewGuard } from '../../guard/index.js';
import { anchorKey, parseAnchor, type Anchor } from '../patchers/anchors.js';
import { valueMatches } from './pattern.js';

/** `pass`: matches; `skip`: a condition inside the pattern did not hold; `fail`: does not match. */
export type PatternResult = 'pass' | 'skip' | 'fail';

interface Failure {
  /** The text holds a conditional or global anchor mismatch: the pattern does not apply. */
  readonly skip: boolean;
  /** The text holds a negation anchor match. */
  readonly negation: boolean;
  /** A *PatternError (what validateMap and validateArray return for skipped elements). */
  readonly patternError: boolean;
}

const MISMATCH: Failure = { skip: false, negation: false, patternError: false };
const NEGATION: Failure = { skip: false, negation: true, patternError: false };

/** Wrapped by a condition or global anchor: Kyverno's message keeps the inner one. */
function anchorMismatch(inner: Failure | undefined): Failure {
  return { skip: true, negation: inner?.negation ?? false, patternError: false };
}

/** multierr.Combine of skip errors in a *PatternError marked Skip. */
function skipped(errors: Failure[]): Failure {
  return { skip: true, negation: errors.some((e) => e.negation), patternError: true };
}

export function matchPattern(resource: JsonValue | undefined, pattern: JsonValue, guard: ReviewGuard = UNBOUNDED_GUARD): PatternResult {
  const failure = element(resource, pattern, guard);
  if (!failure) return 'pass';
  return failure.skip ? 'skip' : 'fail';
}

function element(resource: JsonValue | undefined, pattern: JsonValue, g: ReviewGuard): Failure | undefined {
  g.tick();
  if (isJsonObject(pattern)) return isJsonObject(resource) ? map(resource, pattern, g) : MISMATCH;
  if (Array.isArray(pattern)) return Array.isArray(resource) ? array(resource, pattern, g) : MISMATCH;
  if (Array.isArray(resource)) return everyValueMatches(resource, pattern, g) ? undefined : MISMATCH;
  return valueMatches(resource ?? null, pattern) ? undefined : MISMATCH;
}

/** A scalar pattern against each value of a resource list. */
function everyValueMatches(resource: JsonValue[], pattern: JsonValue, g: ReviewGuard): boolean {
  for (const item of resource) {
    g.tick();
    if (!valueMatches(item, pattern)) return false;
  }
  return true;
}

/** validateMap: anchors (sorted) decide whether the map applies, then the other keys must match. */
function map(resource: JsonObject, original: JsonObject, g: ReviewGuard): Failure | undefined {
  const pattern = expandInMetadata(original, resource);
  const anchorKeys: string[] = [];
  const otherKeys: string[] = [];
  for (const key of Object.keys(pattern)) {
    const type = parseAnchor(key)?.type;
    if (type === 'condition' || type === 'existence' || type === 'equality' || type === 'negation') anchorKeys.push(key);
    else otherKeys.push(key);
  }
  anchorKeys.sort(compareKeys);

  const skips: Failure[] = [];
  let applied = 0;
  for (const key of anchorKeys) {
    const failure = handle(key, pattern[key], resource, g);
    if (!failure) {
      applied++;
      continue;
    }
    if (failure.skip) {
      skips.push(failure);
      continue;
    }
    // A failure stands unless an anchor's own mismatch (not a nested skip) was seen before it.
    if (!skips.some((s) => !s.patternError)) return failure;
  }
  if (skips.length > 0 && (applied === 0 || skips.some((s) => !s.patternError))) return skipped(skips);

  for (const key of resourceKeyOrder(otherKeys, pattern)) {
    const failure = handle(key, pattern[key], resource, g);
    if (failure) return failure;
  }
  return undefined;
}

/** anchor.CreateElementHandler(key).Handle */
function handle(key: string, pattern: JsonValue, resource: JsonObject, g: ReviewGuard): Failure | undefined {
  const anchor = parseAnchor(key);
  switch (anchor?.type) {
    case 'condition': {
      if (!hasOwn(resource, anchor.key)) return anchorMismatch(undefined);
      const inner = element(resource[anchor.key], pattern, g);
      return inner ? anchorMismatch(inner) : undefined;
    }
    case 'global': {
      if (!hasOwn(resource, anchor.key)) return undefined;
      const inner = element(resource[anchor.key], pattern, g);
      return inner ? anchorMismatch(inner) : undefined;
    }
    case 'equality':
      return hasOwn(resource, anchor.key) ? element(resource[anchor.key], pattern, g) : undefined;
    case 'negation':
      return hasOwn(resource, anchor.key) ? NEGATION : undefined;
    case 'existence':
      return hasOwn(resource, anchor.key) ? existence(resource[anchor.key], pattern, g) : undefined;
    default: {
      const value = getOwn(resource, key);
      if (pattern === '*') return value === undefined || value === null ? MISMATCH : undefined;
      return element(value, pattern, g);
    }
  }
}

/** `^(key)`: every map of the pattern list matches some item of the resource list. */
function existence(resource: JsonValue, pattern: JsonValue, g: ReviewGuard): Failure | undefined {
  if (!Array.isArray(resource) || !Array.isArray(pattern)) return MISMATCH;
  for (const item of pattern) {
    if (!isJsonObject(item)) return MISMATCH;
    if (!resource.some((r) => element(r, item, g) === undefined)) return MISMATCH;
  }
  return undefined;
}

/** validateArray: a map pattern applies to every item, a scalar pattern to every value, a list item by item. */
function array(resource: JsonValue[], pattern: JsonValue[], g: ReviewGuard): Failure | undefined {
  if (pattern.length === 0) return MISMATCH;
  const first = pattern[0];
  if (isJsonObject(first)) return collectSkips(resource.map((item) => () => element(item, first, g)));
  if (!Array.isArray(first)) return element(resource, first, g);
  if (resource.length < pattern.length) return MISMATCH;
  return collectSkips(pattern.map((p, i) => () => element(resource[i], p, g)));
}

/** Skipped elements are set aside; any other failure stands; all skipped is a skip. */
function collectSkips(checks: (() => Failure | undefined)[]): Failure | undefined {
  const skips: Failure[] = [];
  let applied = 0;
  for (const check of checks) {
    const failure = check();
    if (!failure) applied++;
    else if (failure.skip) skips.push(failure);
    else return failure;
  }
  return applied === 0 && skips.length > 0 ? skipped(skips) : undefined;
}

/**
 * getSortedNestedAnchorResource: keys sorted, then global anchors and keys whose pattern holds anchors
 * pushed to the front (so those come in reverse order), the rest after them.
 */
function resourceKeyOrder(keys: string[], pattern: JsonObject): string[] {
  const front: string[] = [];
  const back: string[] = [];
  for (const key of [...keys].sort(compareKeys)) {
    if (parseAnchor(key)?.type === 'global' || hasNestedAnchors(pattern[key])) front.unshift(key);
    else back.push(key);
  }
  return [...front, ...back];
}

function hasNestedAnchors(pattern: JsonValue): boolean {
  if (Array.isArray(pattern)) return pattern.some(hasNestedAnchors);
  if (!isJsonObject(pattern)) return false;
  for (const key of Object.keys(pattern)) {
    const type = parseAnchor(key)?.type;
    if (type !== undefined && type !== 'addIfNotPresent') return true;
  }
  return Object.values(pattern).some(hasNestedAnchors);
}

/** Go's sort.Strings order. */
const compareKeys = compareStrings;

/**
 * wildcards.ExpandInMetadata: in a pattern map with `metadata`, label and annotation keys holding
 * wildcards are replaced by the first resource key they match (anchors kept); these two maps keep only
 * their string values, as Kyverno rebuilds them. Returns a new map when it changes anything.
 */
function expandInMetadata(pattern: JsonObject, resource: JsonObject): JsonObject {
  const [metadataKey, metadata] = anchoredEntry('metadata', pattern);
  const resourceMetadata = getOwn(resource, 'metadata');
  if (metadataKey === undefined || !isJsonObject(metadata) || resourceMetadata === undefined || resourceMetadata === null) return pattern;
  let expanded: JsonObject | undefined;
  for (const tag of ['labels', 'annotations']) {
    const [tagKey, patternData] = stringMap(tag, metadata);
    const [, resourceData] = stringMap(tag, resourceMetadata);
    if (tagKey === undefined || !patternData || !resourceData) continue;
    expanded ??= { ...metadata };
    setOwn(expanded, tagKey, expandKeys(patternData, resourceData));
  }
  if (!expanded) return pattern;
  const out = { ...pattern };
  setOwn(out, metadataKey, expanded);
  return out;
}

/** getPatternValue: the entry whose key is `tag`, plain or anchored. */
function anchoredEntry(tag: string, map: JsonObject): [string | undefined, JsonValue | undefined] {
  for (const key of Object.keys(map)) {
    if (key === tag || parseAnchor(key)?.key === tag) return [key, map[key]];
  }
  return [undefined, undefined];
}

/** getValueAsStringMap: the map under `tag`, with only its string values. */
function stringMap(tag: string, data: JsonValue): [string | undefined, Record<string, string> | undefined] {
  if (!isJsonObject(data)) return [undefined, undefined];
  const [key, value] = anchoredEntry(tag, data);
  if (key === undefined || !isJsonObject(value)) return [undefined, undefined];
  const out: Record<string, string> = {};
  for (const k of Object.keys(value)) {
    const v = value[k];
    if (typeof v === 'string') setOwn(out, k, v);
  }
  return [key, out];
}

function expandKeys(pattern: Record<string, string>, resource: Record<string, string>): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(pattern)) {
    if (!hasWildcard(key)) {
      setOwn(out, key, pattern[key]);
      continue;
    }
    const anchor: Anchor | undefined = parseAnchor(key);
    const name = anchor ? anchor.key : key;
    const match = Object.keys(resource).find((k) => wildcardMatch(name, k)) ?? name;
    setOwn(out, anchor ? anchorKey(anchor, match) : match, pattern[key]);
  }
  return out;
}
