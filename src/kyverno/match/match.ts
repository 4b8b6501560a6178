/**
 * `match` / `exclude` (pkg/engine/utils/match.go): inside a filter every given criterion must hold
 * (kinds, names, namespaces, annotations, selector, namespaceSelector, operations, roles, subjects);
 * `any` needs one filter, `all` every filter. Exclude is consulted only after a match.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { KyvernoRuleError } from '../errors.js';
import { selectorMatches, stringMap, type Labels } from './selector.js';
import type { KindSelector, MatchBlock, ResourceFilter, Subject } from '../types.js';
import { wildcardMatch } from '../../go/index.js';

export interface MatchSubject {
  /** The object being matched: the new object, or the old one for DELETE. */
  readonly resource: JsonObject;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly subresource: string;
  readonly operation: string;
  /** The request namespace (the object's own namespace wins when it has one). */
  readonly namespace: string;
  /** Labels of the namespace; undefined when no policy source knows that namespace. */
  readonly namespaceLabels?: Labels;
  readonly username: string;
  readonly groups: readonly string[];
  readonly roles: readonly string[];
  readonly clusterRoles: readonly string[];
  /** False when the request carries no user information (then user criteria of `match` are ignored). */
  readonly hasUserInfo: boolean;
}

/** Undefined when the rule applies; otherwise why not. Throws when a needed fact is missing. */
export function whyNotMatched(match: MatchBlock, exclude: MatchBlock | undefined, s: MatchSubject): string | undefined {
  if (!blockMatches(match, s, true)) return 'resource does not match';
  if (exclude && excluded(exclude, s)) return 'resource excluded';
  return undefined;
}

function blockMatches(block: MatchBlock, s: MatchSubject, isMatch: boolean): boolean {
  return blockHolds(block, (f) => filterMatches(f, s, isMatch));
}

/** An exclude block: its filters that are empty exclude nothing. */
function excluded(block: MatchBlock, s: MatchSubject): boolean {
  return blockHolds(block, (f) => !f.empty && filterMatches(f, s, false));
}

/** `holds` for any of `any`, else all of `all`, else the single filter (none: false). */
function blockHolds(block: MatchBlock, holds: (f: ResourceFilter) => boolean): boolean {
  // Loops rather than some/every (see anyWildcardMatches): every rule of every review is matched.
  const any = block.any;
  if (any && any.length > 0) {
    for (let i = 0; i < any.length; i++) if (holds(any[i])) return true;
    return false;
  }
  const all = block.all;
  if (all && all.length > 0) {
    for (let i = 0; i < all.length; i++) if (!holds(all[i])) return false;
    return true;
  }
  return block.single !== undefined && holds(block.single);
}

function metadata(resource: JsonObject): JsonObject {
  const m = getOwn(resource, 'metadata');
  return isJsonObject(m) ? m : {};
}

function filterMatches(f: ResourceFilter, s: MatchSubject, isMatch: boolean): boolean {
  if (f.empty) return false;
  if (f.kinds && !kindsMatch(f.kinds, s)) return false;
  if (f.operations && !f.operations.includes(s.operation)) return false;
  // The object's facts are read only by the criteria below (a filter of kinds alone, the common one, needs none).
  if (f.name === undefined && !f.names && !f.namespaces && !f.annotations && !f.selector && !f.namespaceSelector) return userCriteriaMatch(f, s, isMatch);
  const meta = metadata(s.resource);
  const nameValue = getOwn(meta, 'name');
  const generateName = getOwn(meta, 'generateName');
  const name = typeof nameValue === 'string' && nameValue !== '' ? nameValue : typeof generateName === 'string' ? generateName : '';
  if (f.name !== undefined && !wildcardMatch(f.name, name)) return false;
  if (f.names && !anyWildcardMatches(f.names, name)) return false;
  // A Namespace is in itself: its metadata.name, never its generateName (checkNameSpace reads GetName),
  // so a Namespace whose name the API server has yet to generate is in namespace "".
  const namespace = s.kind === 'Namespace' ? (typeof nameValue === 'string' ? nameValue : '') : objectNamespace(s.resource, s.namespace);
  if (f.namespaces && !anyWildcardMatches(f.namespaces, namespace)) return false;
  if (f.annotations) {
    const annotations = stringMap(getOwn(meta, 'annotations'));
    const keys = Object.keys(annotations);
    const ok = f.annotations.every(([k, v]) => keys.some((ak) => wildcardMatch(k, ak) && wildcardMatch(v, annotations[ak])));
    if (!ok) return false;
  }
  if (f.selector && !selectorMatches(f.selector, stringMap(getOwn(meta, 'labels')))) return false;
  // A namespaceSelector does not hold for a Namespace itself (Kyverno #7837: "not applicable for namespace
  // resource"), so it neither selects nor excludes one.
  if (f.namespaceSelector && (s.kind === 'Namespace' || !namespaceSelectorMatches(f, s, namespace))) return false;
  return userCriteriaMatch(f, s, isMatch);
}

function userCriteriaMatch(f: ResourceFilter, s: MatchSubject, isMatch: boolean): boolean {
  // Without user information (offline runs) the user criteria of a match block are not checked.
  if (isMatch && !s.hasUserInfo) return true;
  if (f.roles && !anyIncluded(f.roles, s.roles)) return false;
  if (f.clusterRoles && !anyIncluded(f.clusterRoles, s.clusterRoles)) return false;
  if (f.subjects) {
    let found = false;
    for (let i = 0; i < f.subjects.length && !found; i++) found = subjectMatches(f.subjects[i], s);
    if (!found) return false;
  }
  return true;
}

/**
 * Loops over the filters' lists rather than some/every: they are the compiled policy's, which are
 * frozen, and V8 runs those array methods on frozen arrays several times slower than loops.
 */
function anyWildcardMatches(patterns: readonly string[], text: string): boolean {
  for (let i = 0; i < patterns.length; i++) if (wildcardMatch(patterns[i], text)) return true;
  return false;
}

function anyIncluded(wanted: readonly string[], held: readonly string[]): boolean {
  for (let i = 0; i < wanted.length; i++) if (held.includes(wanted[i])) return true;
  return false;
}

/** The namespace an object is in: its own `metadata.namespace`, else the request's. */
export function objectNamespace(resource: JsonValue, requestNamespace: string): string {
  const ns = isJsonObject(resource) ? getOwn(metadata(resource), 'namespace') : undefined;
  return typeof ns === 'string' && ns !== '' ? ns : requestNamespace;
}

function namespaceSelectorMatches(f: ResourceFilter, s: MatchSubject, namespace: string): boolean {
  const selector = f.namespaceSelector!;
  if (selector.empty) return true;
  // A selector Kyverno cannot parse matches no labels: no need to know them.
  if (selector.invalid) return false;
  if (namespace === '') return selectorMatches(selector, {});
  if (s.namespaceLabels === undefined) {
    throw new KyvernoRuleError(
      `namespaceSelector cannot be evaluated: the labels of namespace "${namespace}" are unknown ` +
        '(add its Namespace object to the policy sources)',
    );
  }
  return selectorMatches(selector, s.namespaceLabels);
}

function kindsMatch(kinds: readonly KindSelector[], s: MatchSubject): boolean {
  for (let i = 0; i < kinds.length; i++) if (kindMatches(kinds[i], s)) return true;
  return false;
}

function kindMatches(k: KindSelector, s: MatchSubject): boolean {
  // The kind first: it decides for most rules, and most kinds are written without wildcards.
  if (k.kind !== s.kind && !wildcardMatch(k.kind, s.kind)) return false;
  if (!wildcardMatch(k.group, s.group) || !wildcardMatch(k.version, s.version)) return false;
  // An entry without a subresource selects the resource itself, not its subresources (`Pod` does not
  // select pods/status, `Pod/*` and `*/*` do); only Pod rules also see ephemeral-container updates.
  if (wildcardMatch(k.subresource, s.subresource)) return true;
  return s.group === '' && s.version === 'v1' && s.kind === 'Pod' && s.subresource === 'ephemeralcontainers';
}

function subjectMatches(subject: Subject, s: MatchSubject): boolean {
  switch (subject.kind) {
    case 'ServiceAccount':
      return wildcardMatch(`system:serviceaccount:${subject.namespace}:${subject.name}`, s.username);
    case 'Group':
      return s.groups.some((g) => wildcardMatch(subject.name, g));
    case 'User':
      return wildcardMatch(subject.name, s.username);
    default:
      return false;
  }
}
