/**
 * `match` / `exclude` blocks checked and compiled once, at load, into the filters match.ts evaluates
 * per request; and whether a block needs the requester's roles, which an admission request does not carry.
 */
import { getOwn, isJsonObject, type JsonValue } from '../../json/index.js';
import type { Report } from '../compile-report.js';
import type { KindSelector, MatchBlock, ResourceFilter, Subject } from '../types.js';
import { parseKindSelector } from './kinds.js';
import { compileSelector } from './selector.js';

export function compileMatch(raw: JsonValue, path: string, report: Report, isExclude = false): MatchBlock | undefined {
  if (!isJsonObject(raw)) {
    report.error(path, 'must be an object');
    return undefined;
  }
  const any = getOwn(raw, 'any');
  const all = getOwn(raw, 'all');
  const filters = (list: JsonValue, at: string) => {
    if (!Array.isArray(list)) {
      report.error(at, 'must be a list');
      return [];
    }
    return list.map((f, i) => compileFilter(f, `${at}[${i}]`, report));
  };
  // Kyverno refuses a match filter without kinds ("the kind attribute is mandatory when working with the
  // resources element"); an exclude filter may leave them out.
  const requireKinds = (f: ResourceFilter, at: string) => {
    if (!isExclude && !f.empty && !f.kinds) {
      report.find(`${at}.resources.kinds`, 'is required: Kyverno refuses a match filter that names no kinds (at least one kind must be given)', 'required');
    }
    return f;
  };
  const checked = (list: JsonValue, at: string) => filters(list, at).map((f, i) => requireKinds(f, `${at}[${i}]`));
  if (any !== undefined && any !== null && (!Array.isArray(any) || any.length > 0)) return { any: checked(any, `${path}.any`) };
  if (all !== undefined && all !== null && (!Array.isArray(all) || all.length > 0)) return { all: checked(all, `${path}.all`) };
  const single = compileFilter(raw, path, report);
  if (single.empty && !isExclude) report.error(path, 'must select something (resources, subjects, roles or clusterRoles)');
  return { single: requireKinds(single, path) };
}

function stringList(value: JsonValue | undefined, path: string, report: Report): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    report.error(path, 'must be a list of strings');
    return undefined;
  }
  return value.length > 0 ? (value as string[]) : undefined;
}

function compileFilter(raw: JsonValue, path: string, report: Report): ResourceFilter {
  if (!isJsonObject(raw)) {
    report.error(path, 'must be an object');
    return { empty: true };
  }
  const resources = getOwn(raw, 'resources');
  const r = isJsonObject(resources) ? resources : {};
  if (resources !== undefined && resources !== null && !isJsonObject(resources)) report.error(`${path}.resources`, 'must be an object');
  const at = `${path}.resources`;
  const kindStrings = stringList(getOwn(r, 'kinds'), `${at}.kinds`, report);
  const kinds: KindSelector[] = [];
  kindStrings?.forEach((k, i) => {
    const parsed = parseKindSelector(k);
    if (parsed) {
      kinds.push(parsed);
      report.kinds.push({ path: `${at}.kinds[${i}]`, text: k, selector: parsed });
    } else report.error(`${at}.kinds[${i}]`, `"${k}" is not a kind (Kind, version/Kind or group/version/Kind, optionally /subresource)`);
  });
  const name = getOwn(r, 'name');
  if (name !== undefined && name !== null && typeof name !== 'string') report.error(`${at}.name`, 'must be a string');
  const annotationsRaw = getOwn(r, 'annotations');
  let annotations: [string, string][] | undefined;
  if (annotationsRaw !== undefined && annotationsRaw !== null) {
    if (!isJsonObject(annotationsRaw) || !Object.values(annotationsRaw).every((v) => typeof v === 'string')) {
      report.error(`${at}.annotations`, 'must be a map of strings');
    } else if (Object.keys(annotationsRaw).length > 0) {
      annotations = Object.entries(annotationsRaw) as [string, string][];
    }
  }
  const selectorOf = (key: string) => {
    const s = getOwn(r, key);
    if (s === undefined || s === null) return undefined;
    const compiled = compileSelector(s);
    if (typeof compiled === 'string') {
      report.error(`${at}.${key}`, compiled);
      return undefined;
    }
    return compiled;
  };
  const selector = selectorOf('selector');
  const namespaceSelector = selectorOf('namespaceSelector');
  const names = stringList(getOwn(r, 'names'), `${at}.names`, report);
  const namespaces = stringList(getOwn(r, 'namespaces'), `${at}.namespaces`, report);
  const operations = stringList(getOwn(r, 'operations'), `${at}.operations`, report);
  const roles = stringList(getOwn(raw, 'roles'), `${path}.roles`, report);
  const clusterRoles = stringList(getOwn(raw, 'clusterRoles'), `${path}.clusterRoles`, report);
  const subjects = compileSubjects(getOwn(raw, 'subjects'), `${path}.subjects`, report);
  const filter: ResourceFilter = {
    ...(kinds.length > 0 ? { kinds } : {}),
    ...(typeof name === 'string' && name !== '' ? { name } : {}),
    ...(names ? { names } : {}),
    ...(namespaces ? { namespaces } : {}),
    ...(annotations ? { annotations } : {}),
    ...(selector ? { selector } : {}),
    ...(namespaceSelector ? { namespaceSelector } : {}),
    ...(operations ? { operations } : {}),
    ...(roles ? { roles } : {}),
    ...(clusterRoles ? { clusterRoles } : {}),
    ...(subjects ? { subjects } : {}),
    empty: false,
  };
  // Kyverno tests a filter for emptiness with reflect.DeepEqual(UserInfo, UserInfo{}), where a list written
  // empty (`subjects: []`) is not nil: such a filter is not empty, and since an empty list is no criterion,
  // it holds for every request (an exclude filter `{subjects: []}` excludes everything).
  const userInfoWritten = ['roles', 'clusterRoles', 'subjects'].some((k) => Array.isArray(getOwn(raw, k)));
  return { ...filter, empty: Object.keys(filter).length === 1 && !userInfoWritten };
}

function compileSubjects(raw: JsonValue | undefined, path: string, report: Report): Subject[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    report.error(path, 'must be a list');
    return undefined;
  }
  const out: Subject[] = [];
  raw.forEach((s, i) => {
    const kind = isJsonObject(s) ? getOwn(s, 'kind') : undefined;
    const name = isJsonObject(s) ? getOwn(s, 'name') : undefined;
    const namespace = isJsonObject(s) ? getOwn(s, 'namespace') : undefined;
    if (kind !== 'User' && kind !== 'Group' && kind !== 'ServiceAccount') {
      report.error(`${path}[${i}].kind`, 'must be User, Group or ServiceAccount');
    } else if (typeof name !== 'string' || name === '') {
      report.error(`${path}[${i}].name`, 'is required');
    } else {
      out.push({ kind, name, namespace: typeof namespace === 'string' ? namespace : '' });
    }
  });
  return out.length > 0 ? out : undefined;
}

function filterNeedsRoles(f: ResourceFilter): boolean {
  return (f.roles?.length ?? 0) > 0 || (f.clusterRoles?.length ?? 0) > 0;
}

export function blockNeedsRoles(block: MatchBlock): boolean {
  return [...(block.any ?? []), ...(block.all ?? []), ...(block.single ? [block.single] : [])].some(filterNeedsRoles);
}
