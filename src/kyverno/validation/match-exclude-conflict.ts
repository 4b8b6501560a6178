/**
 * Kyverno's Rule.ValidateMatchExcludeConflict (api/kyverno/v1/rule_types.go), run by its policy
 * validation for every rule: a rule whose `exclude` takes back everything its `match` selects is refused
 * ("Rule is matching an empty set"). Kept as Kyverno decides it, quirks included:
 * - nothing is checked when either block uses `all`, or without an `exclude`, or with an exclude that
 *   decodes to Go's zero value (`exclude: {}`, `exclude: {resources: {}}`);
 * - with `any` on both sides, a filter written alike on both sides (reflect.DeepEqual of the decoded
 *   filters) is the conflict, and nothing else is compared;
 * - otherwise the blocks' own (legacy) fields are compared: the conflict stands unless some field of the
 *   exclude block fails to cover the match block's (roles, cluster roles, subjects, kinds and namespaces
 *   as sets, names as wildcards, selectors by their requirements and labels, annotations exactly);
 *   `operations` are never compared, and a block written with `any` has no legacy fields.
 * A `required` finding, as the other match checks: a policy set refuses the policy.
 */
import { wildcardMatch } from '../../go/index.js';
import { getOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../json/index.js';
import type { ProblemSink } from './sink.js';

export function checkMatchExcludeConflict(rule: JsonObject, path: string, report: ProblemSink): void {
  if (matchesEmptySet(rule)) report.find(path, 'Rule is matching an empty set (Kyverno refuses the policy)', 'required');
}

function matchesEmptySet(rule: JsonObject): boolean {
  const excludeRaw = getOwn(rule, 'exclude');
  if (excludeRaw === undefined || excludeRaw === null) return false;
  const match = decodeMatch(getOwn(rule, 'match'));
  const exclude = decodeMatch(excludeRaw);
  if (lengthOf(exclude.all) > 0 || lengthOf(match.all) > 0) return false;
  if (lengthOf(match.any) > 0 && lengthOf(exclude.any) > 0) {
    return match.any!.some((m) => exclude.any!.some((e) => same(m, e)));
  }
  if (same(exclude, ZERO_MATCH)) return false;
  const m = match.filter;
  const e = exclude.filter;
  if (lengthOf(e.roles) > 0 && !covers(e.roles, m.roles)) return false;
  if (lengthOf(e.clusterRoles) > 0 && !covers(e.clusterRoles, m.clusterRoles)) return false;
  if (lengthOf(e.subjects) > 0 && !covers(e.subjects!.map(key), m.subjects?.map(key) ?? null)) return false;
  if (e.name !== '' && !wildcardMatch(e.name, m.name)) return false;
  if (lengthOf(e.names) > 0) {
    // Decided here either way: Kyverno returns after comparing the names.
    return lengthOf(m.names) > 0 && m.names!.some((name) => e.names!.some((pattern) => wildcardMatch(pattern, name)));
  }
  if (lengthOf(e.namespaces) > 0 && !covers(e.namespaces, m.namespaces)) return false;
  if (lengthOf(e.kinds) > 0 && !covers(e.kinds, m.kinds)) return false;
  if (!selectorCovers(m.selector, e.selector) || !selectorCovers(m.namespaceSelector, e.namespaceSelector)) return false;
  if ((m.selector === null) !== (e.selector === null)) return false;
  if ((m.namespaceSelector === null) !== (e.namespaceSelector === null)) return false;
  if (m.annotations !== null && e.annotations !== null && !jsonEqual(m.annotations, e.annotations)) return false;
  if ((m.annotations === null) !== (e.annotations === null)) return false;
  return true;
}

/** A filter as Go decodes it: absent or null is nil (null here), `[]` an empty list; unknown fields dropped. */
interface Filter {
  roles: string[] | null;
  clusterRoles: string[] | null;
  subjects: JsonObject[] | null;
  kinds: string[] | null;
  name: string;
  names: string[] | null;
  namespaces: string[] | null;
  annotations: JsonObject | null;
  selector: Selector | null;
  namespaceSelector: Selector | null;
  operations: string[] | null;
}

interface Selector {
  matchLabels: JsonObject | null;
  matchExpressions: JsonObject[] | null;
}

interface DecodedMatch {
  any: Filter[] | null;
  all: Filter[] | null;
  filter: Filter;
}

const ZERO_MATCH = decodeMatch({});

/** reflect.DeepEqual of two decoded values (plain data: nulls, strings, lists, objects). */
const same = (a: Filter | DecodedMatch, b: Filter | DecodedMatch) => jsonEqual(a as unknown as JsonValue, b as unknown as JsonValue);

function decodeMatch(raw: JsonValue | undefined): DecodedMatch {
  const block = isJsonObject(raw) ? raw : {};
  const filters = (v: JsonValue | undefined) => (Array.isArray(v) ? v.map((f) => decodeFilter(isJsonObject(f) ? f : {})) : null);
  return { any: filters(getOwn(block, 'any')), all: filters(getOwn(block, 'all')), filter: decodeFilter(block) };
}

function decodeFilter(filter: JsonObject): Filter {
  const resources = getOwn(filter, 'resources');
  const r = isJsonObject(resources) ? resources : {};
  const strings = (v: JsonValue | undefined) => (Array.isArray(v) ? v.map((s) => (typeof s === 'string' ? s : '')) : null);
  const subjects = getOwn(filter, 'subjects');
  const annotations = getOwn(r, 'annotations');
  const name = getOwn(r, 'name');
  return {
    roles: strings(getOwn(filter, 'roles')),
    clusterRoles: strings(getOwn(filter, 'clusterRoles')),
    subjects: Array.isArray(subjects) ? subjects.map((s) => decodeSubject(isJsonObject(s) ? s : {})) : null,
    kinds: strings(getOwn(r, 'kinds')),
    name: typeof name === 'string' ? name : '',
    names: strings(getOwn(r, 'names')),
    namespaces: strings(getOwn(r, 'namespaces')),
    annotations: isJsonObject(annotations) ? annotations : null,
    selector: decodeSelector(getOwn(r, 'selector')),
    namespaceSelector: decodeSelector(getOwn(r, 'namespaceSelector')),
    operations: strings(getOwn(r, 'operations')),
  };
}

/** rbacv1.Subject: its four string fields, absent being "". */
function decodeSubject(subject: JsonObject): JsonObject {
  const text = (k: string) => {
    const v = getOwn(subject, k);
    return typeof v === 'string' ? v : '';
  };
  return { kind: text('kind'), apiGroup: text('apiGroup'), name: text('name'), namespace: text('namespace') };
}

function decodeSelector(raw: JsonValue | undefined): Selector | null {
  if (!isJsonObject(raw)) return null;
  const labels = getOwn(raw, 'matchLabels');
  const expressions = getOwn(raw, 'matchExpressions');
  return {
    matchLabels: isJsonObject(labels) ? labels : null,
    matchExpressions: Array.isArray(expressions) ? expressions.map((x) => decodeRequirement(isJsonObject(x) ? x : {})) : null,
  };
}

/** LabelSelectorRequirement as Go decodes it (`values` nil or a list, which reflect.DeepEqual tells apart). */
function decodeRequirement(requirement: JsonObject): JsonObject {
  const key = getOwn(requirement, 'key');
  const operator = getOwn(requirement, 'operator');
  const values = getOwn(requirement, 'values');
  const list = Array.isArray(values) ? values.map((v) => (typeof v === 'string' ? v : '')) : null;
  return { key: typeof key === 'string' ? key : '', operator: typeof operator === 'string' ? operator : '', values: list };
}

/** A requirement's JSON as Kyverno compares it in the legacy path (`values` omitted when empty). */
function requirementKey(requirement: JsonObject): string {
  const values = requirement.values as string[] | null;
  return JSON.stringify([requirement.key, requirement.operator, values ?? []]);
}

/**
 * Both selectors given: every requirement of the match selector is among the exclude selector's (when
 * that has any), and every label the match selector requires has the same value in the exclude
 * selector's labels (when that has any; a label it lacks reads as "").
 */
function selectorCovers(match: Selector | null, exclude: Selector | null): boolean {
  if (match === null || exclude === null) return true;
  if (lengthOf(exclude.matchExpressions) > 0) {
    if (lengthOf(match.matchExpressions) === 0) return false;
    const excluded = new Set(exclude.matchExpressions!.map(requirementKey));
    if (!match.matchExpressions!.every((x) => excluded.has(requirementKey(x)))) return false;
  }
  if (exclude.matchLabels !== null && Object.keys(exclude.matchLabels).length > 0) {
    if (match.matchLabels === null || Object.keys(match.matchLabels).length === 0) return false;
    for (const [label, value] of Object.entries(match.matchLabels)) {
      const other = getOwn(exclude.matchLabels, label);
      if ((typeof other === 'string' ? other : '') !== (typeof value === 'string' ? value : '')) return false;
    }
  }
  return true;
}

/** Kyverno's `len(exclude) > 0 && (len(match) == 0 || !set(exclude).HasAll(match...))` turned around: does exclude cover match? */
function covers(exclude: readonly string[] | null, match: readonly string[] | null): boolean {
  if (match === null || match.length === 0) return false;
  const set = new Set(exclude);
  return match.every((m) => set.has(m));
}

function lengthOf(list: readonly unknown[] | null): number {
  return list === null ? 0 : list.length;
}

const key = (subject: JsonObject) => JSON.stringify(subject);
