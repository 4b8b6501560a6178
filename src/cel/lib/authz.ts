import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { actualSize, LIST_CREATE_BASE_COST, STRUCT_CREATE_BASE_COST } from './cost.js';
import { celError } from './errors.js';
import { parseFieldSelector, SelectorParseError, type FieldRequirement } from './field-selector.js';
import { LabelSelectorError, parseLabelSelector, type LabelRequirement } from './label-selector.js';
import { goTrimSpace } from '../../go/index.js';
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../../k8s/index.js';

/**
 * Kubernetes' authorization library (`k8s.io/apiserver/pkg/cel/library/authz.go`, with the 1.31
 * selectors). The checks call an {@link Authorizer}; in a webhook that is a SubjectAccessReview
 * against the cluster, which the engine provides.
 *
 *   authorizer.path(string) -> PathCheck, authorizer.group(string) -> GroupCheck,
 *   authorizer.serviceAccount(namespace, name) -> Authorizer, authorizer.requestResource
 *   <GroupCheck>.resource(string) -> ResourceCheck
 *   <ResourceCheck>.subresource/namespace/name/fieldSelector/labelSelector(string) -> ResourceCheck
 *   <PathCheck|ResourceCheck>.check(verb) -> Decision   (cost 350,000 each)
 *   <Decision>.allowed(), .reason(), .errored(), .error()
 */

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
export const PATH_CHECK_TYPE = 'kubernetes.authorization.PathCheck';
export const GROUP_CHECK_TYPE = 'kubernetes.authorization.GroupCheck';
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck';
export const DECISION_TYPE = 'kubernetes.authorization.Decision';

export interface UserInfo {
  username: string;
  uid?: string;
  groups?: readonly string[];
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** The attributes of one check, as Kubernetes' authorizer.AttributesRecord carries them. */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  /** True for resource checks, false for path (non-resource) checks. */
  resourceRequest: boolean;
  path: string;
  apiGroup: string;
  /** Always '*' for resource checks made from CEL. */
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** Raw selectors as written, for a SubjectAccessReview's `rawSelector`. */
  fieldSelector?: string;
  labelSelector?: string;
  /** The field selector parsed (when it parses) or its parse error. */
  fieldSelectorRequirements?: FieldRequirement[];
  fieldSelectorParsingErr?: string;
  /** The label selector parsed (when it parses) or its parse error. */
  labelSelectorRequirements?: LabelRequirement[];
  labelSelectorParsingErr?: string;
}

export interface AuthorizationDecision {
  decision: 'allow' | 'deny' | 'noOpinion';
  reason?: string;
  /** Set when the authorizer failed; the decision is then not an allow. */
  error?: string;
}

/** What `check()` asks; the engine implements it with a SubjectAccessReview. */
export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): AuthorizationDecision | Promise<AuthorizationDecision>;
}

export class AuthorizerValue {
  readonly celTypeName = AUTHORIZER_TYPE;
  /** The pre-configured check of the request's own resource (`authorizer.requestResource`). */
  readonly requestResource?: ResourceCheckValue;

  constructor(
    readonly authorizer: Authorizer,
    readonly user: UserInfo,
    requestResource?: RequestResource,
  ) {
    if (requestResource) {
      this.requestResource = new ResourceCheckValue(this, requestResource.group, requestResource.resource, {
        subresource: requestResource.subresource ?? '',
        namespace: requestResource.namespace ?? '',
        name: requestResource.name ?? '',
      });
    }
  }

  celEquals = refuseEquality;

  celSameArgument(other: unknown): boolean {
    return other instanceof AuthorizerValue && other.authorizer === this.authorizer && sameUser(other.user, this.user);
  }
}

/**
 * CEL equality of authorization values: Kubernetes' receiverOnlyObjectVal.Equal, which every one of them
 * embeds, asserts its argument is a bare receiverOnlyObjectVal, which no CEL value is, and so answers
 * MaybeNoSuchOverloadErr (apiserver pkg/cel/library/authz.go): `==` fails with 'no such overload', `!=`
 * is true, `in` finds nothing.
 */
function refuseEquality(): undefined {
  return undefined;
}

/**
 * Whether two values make the same authorization request, for matching an awaited check()
 * (celSameArgument, src/cel/library.ts): a re-evaluation builds new values for the same check.
 */
function sameUser(a: UserInfo, b: UserInfo): boolean {
  return a === b || (a.username === b.username && a.uid === b.uid && sameStrings(a.groups, b.groups) && sameExtra(a.extra, b.extra));
}

function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((x, i) => x === b[i]);
}

function sameExtra(a: UserInfo['extra'], b: UserInfo['extra']): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameStrings(a[k], b[k]));
}

export interface RequestResource {
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export class PathCheckValue {
  readonly celTypeName = PATH_CHECK_TYPE;
  constructor(
    readonly authz: AuthorizerValue,
    readonly path: string,
  ) {}
  celEquals = refuseEquality;
  celSameArgument(other: unknown): boolean {
    return other instanceof PathCheckValue && other.authz.celSameArgument(this.authz) && other.path === this.path;
  }
}

export class GroupCheckValue {
  readonly celTypeName = GROUP_CHECK_TYPE;
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
  ) {}
  celEquals = refuseEquality;
  celSameArgument(other: unknown): boolean {
    return other instanceof GroupCheckValue && other.authz.celSameArgument(this.authz) && other.group === this.group;
  }
}

interface ResourceParts {
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector?: string;
  labelSelector?: string;
}

export class ResourceCheckValue {
  readonly celTypeName = RESOURCE_CHECK_TYPE;
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
    readonly resource: string,
    readonly parts: ResourceParts,
  ) {}

  with(change: Partial<ResourceParts>): ResourceCheckValue {
    return new ResourceCheckValue(this.authz, this.group, this.resource, { ...this.parts, ...change });
  }

  celEquals = refuseEquality;
  celSameArgument(other: unknown): boolean {
    if (!(other instanceof ResourceCheckValue)) return false;
    const a = this.parts as unknown as Record<string, unknown>;
    const b = other.parts as unknown as Record<string, unknown>;
    return (
      other.authz.celSameArgument(this.authz) &&
      other.group === this.group &&
      other.resource === this.resource &&
      ['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'].every((k) => a[k] === b[k])
    );
  }
}

export class DecisionValue {
  readonly celTypeName = DECISION_TYPE;
  constructor(readonly decision: AuthorizationDecision) {}
  celEquals = refuseEquality;
  celSameArgument(other: unknown): boolean {
    return other === this;
  }
}

/** The user a service account authenticates as (serviceaccount.ServiceAccountInfo.UserInfo). */
export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

function authorize(authz: AuthorizerValue, attributes: AuthorizationAttributes): DecisionValue | Promise<DecisionValue> {
  const failed = (e: unknown) =>
    new DecisionValue({ decision: 'noOpinion', reason: '', error: e instanceof Error ? e.message : String(e) });
  try {
    const result = authz.authorizer.authorize(attributes);
    if (result instanceof Promise) return result.then((d) => new DecisionValue(d), failed);
    return new DecisionValue(result);
  } catch (e) {
    return failed(e);
  }
}

function resourceAttributes(check: ResourceCheckValue, verb: string): AuthorizationAttributes {
  const { subresource, namespace, name, fieldSelector, labelSelector } = check.parts;
  const attrs: AuthorizationAttributes = {
    user: check.authz.user,
    verb,
    resourceRequest: true,
    path: '',
    apiGroup: check.group,
    apiVersion: '*',
    resource: check.resource,
    subresource,
    namespace,
    name,
  };
  // Empty selectors are not sent; an unparsable field selector travels as its parse error.
  if (fieldSelector) {
    attrs.fieldSelector = fieldSelector;
    try {
      attrs.fieldSelectorRequirements = parseFieldSelector(fieldSelector);
    } catch (e) {
      if (!(e instanceof SelectorParseError)) throw e;
      attrs.fieldSelectorParsingErr = e.message;
    }
  }
  if (labelSelector) {
    attrs.labelSelector = labelSelector;
    try {
      attrs.labelSelectorRequirements = parseLabelSelector(labelSelector);
    } catch (e) {
      if (!(e instanceof LabelSelectorError)) throw e;
      attrs.labelSelectorParsingErr = e.message;
    }
  }
  return attrs;
}

/** Kubernetes' cost of parsing a selector of the given length into requirements. */
function selectorCost(length: number): number {
  const parse = Math.ceil(length * 0.1);
  const requirements = Math.ceil(length * 0.5);
  return LIST_CREATE_BASE_COST + parse + requirements * (LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST);
}

export const authzLibrary: CelLibrary = {
  name: 'kubernetes.authz',
  register(r: LibraryRegistrar) {
    const A = AUTHORIZER_TYPE;
    const P = PATH_CHECK_TYPE;
    const G = GROUP_CHECK_TYPE;
    const R = RESOURCE_CHECK_TYPE;
    const D = DECISION_TYPE;
    r.registerType(R, ResourceCheckValue);
    r.registerType(A, AuthorizerValue);
    r.registerType(P, PathCheckValue);
    r.registerType(G, GroupCheckValue);
    r.registerType(D, DecisionValue);

    r.registerFunction(`${A}.path(string): ${P}`, (a: AuthorizerValue, path: string) => {
      // Go's strings.TrimSpace: JS trim() strips U+FEFF too and keeps U+0085.
      if (goTrimSpace(path) === '') throw celError('path must not be empty');
      return new PathCheckValue(a, path);
    });
    r.registerFunction(`${A}.group(string): ${G}`, (a: AuthorizerValue, group: string) => new GroupCheckValue(a, group));
    r.registerFunction(`${A}.serviceAccount(string, string): ${A}`, (a: AuthorizerValue, namespace: string, name: string) => {
      if (nameIsDNSSubdomain(name, false).length > 0) throw celError('Invalid service account name');
      if (nameIsDNSLabel(namespace, false).length > 0) throw celError('Invalid service account namespace');
      return new AuthorizerValue(a.authorizer, serviceAccountUser(namespace, name));
    });
    r.registerFunction(`${G}.resource(string): ${R}`, (g: GroupCheckValue, resource: string) => {
      if (goTrimSpace(resource) === '') throw celError('resource must not be empty');
      return new ResourceCheckValue(g.authz, g.group, resource, { subresource: '', namespace: '', name: '' });
    });
    for (const part of ['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'] as const) {
      r.registerFunction(`${R}.${part}(string): ${R}`, (r: ResourceCheckValue, v: string) => r.with({ [part]: v }));
    }
    // check() may call out to the cluster: registered as possibly asynchronous.
    r.registerFunction(`${P}.check(string): ${D}`, (p: PathCheckValue, verb: string) =>
      authorize(p.authz, {
        user: p.authz.user,
        verb,
        resourceRequest: false,
        path: p.path,
        apiGroup: '',
        apiVersion: '',
        resource: '',
        subresource: '',
        namespace: '',
        name: '',
      }),
    );
    r.registerFunction(`${R}.check(string): ${D}`, (r: ResourceCheckValue, verb: string) =>
      authorize(r.authz, resourceAttributes(r, verb)),
    );
    r.registerFunction(`${D}.allowed(): bool`, (d: DecisionValue) => d.decision.decision === 'allow');
    r.registerFunction(`${D}.reason(): string`, (d: DecisionValue) => d.decision.reason ?? '');
    r.registerFunction(`${D}.errored(): bool`, (d: DecisionValue) => d.decision.error !== undefined);
    r.registerFunction(`${D}.error(): string`, (d: DecisionValue) => d.decision.error ?? '');
  },
  callCost(name, args) {
    switch (name) {
      case 'check':
        // Fixed so that at most two checks fit in one expression's cost limit.
        return 350_000;
      case 'serviceAccount':
      case 'path':
      case 'group':
      case 'resource':
      case 'subresource':
      case 'namespace':
      case 'name':
      case 'allowed':
      case 'reason':
      case 'error':
      case 'errored':
        return 1;
      case 'fieldSelector':
      case 'labelSelector':
        return args.length >= 2 ? selectorCost(actualSize(args[1])) : undefined;
    }
    return undefined;
  },
};

/** The value of the `authorizer` variable for one admission request. */
export function createAuthorizerValue(
  authorizer: Authorizer,
  user: UserInfo,
  requestResource?: RequestResource,
): AuthorizerValue {
  return new AuthorizerValue(authorizer, user, requestResource);
}
