/**
 * The compiled form of a Kyverno policy: everything that can be checked or parsed once is, so that
 * evaluating a request only substitutes variables and applies patches. Compiled values are frozen.
 */
import type { JsonObject, JsonValue } from '../json/index.js';
import type { OperatorName } from './match/operators.js';
import type { PatchTemplate } from './patchers/patch-template.js';
import type { CompiledSelector } from './match/selector.js';
import type { WebhookConditions } from './webhook-conditions.js';

/** A `kinds` entry: `Kind`, `version/Kind`, `group/version/Kind`, with `/subresource`; `*` wildcards. */
export interface KindSelector {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** '' = any subresource or none */
  readonly subresource: string;
}

export interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

/** One `resources` + user filter of a match or exclude block. */
export interface ResourceFilter {
  readonly kinds?: readonly KindSelector[];
  readonly name?: string;
  readonly names?: readonly string[];
  readonly namespaces?: readonly string[];
  readonly annotations?: readonly (readonly [string, string])[];
  readonly selector?: CompiledSelector;
  readonly namespaceSelector?: CompiledSelector;
  readonly operations?: readonly string[];
  readonly roles?: readonly string[];
  readonly clusterRoles?: readonly string[];
  readonly subjects?: readonly Subject[];
  /** Neither resource nor user criteria: such a filter never matches ("match cannot be empty"). */
  readonly empty: boolean;
}

export interface MatchBlock {
  readonly any?: readonly ResourceFilter[];
  readonly all?: readonly ResourceFilter[];
  /** The legacy form: `resources` / `subjects` … directly under `match`. */
  readonly single?: ResourceFilter;
}

export interface Condition {
  readonly key: JsonValue;
  readonly operator: OperatorName;
  readonly value: JsonValue;
  /** Its `message`, when not empty: part of the rule's skip message when it fails. */
  readonly message?: string;
}

/** `{any, all}` (both must hold when both are given) or the legacy bare list (= all). */
export interface ConditionBlock {
  readonly any?: readonly Condition[];
  readonly all?: readonly Condition[];
}

export type ContextEntry =
  | { readonly name: string; readonly type: 'variable'; readonly value?: JsonValue; readonly jmesPath?: string; readonly default?: JsonValue }
  | { readonly name: string; readonly type: 'configMap'; readonly configMapName: string; readonly namespace: string }
  | {
      readonly name: string;
      readonly type: 'apiCall';
      readonly urlPath: string;
      readonly method: 'GET' | 'POST';
      readonly data?: JsonValue;
      readonly jmesPath?: string;
      readonly default?: JsonValue;
      readonly service?: JsonValue;
    }
  | { readonly name: string; readonly type: 'unsupported'; readonly what: string };

export interface ForeachEntry {
  /** JMESPath expression (no braces) giving the list to iterate. */
  readonly list: string;
  /** Iteration order; undefined = the default (descending for strategic merge, ascending otherwise). */
  readonly order?: 'Ascending' | 'Descending';
  readonly context: readonly ContextEntry[];
  readonly preconditions?: ConditionBlock;
  /** The entry's patches as written, substituted per element: `{patchStrategicMerge?, patchesJson6902?}`. */
  readonly patches: JsonObject;
  readonly hasStrategicMerge: boolean;
  /** The entry's patchesJson6902 parsed once (absent with strategic merge, or when the text path must run). */
  readonly patchTemplate?: PatchTemplate;
  readonly foreach?: readonly ForeachEntry[];
}

/** A plain rule's patchesJson6902 parsed once, and the rest of the rule to substitute beside it. */
export interface TemplatedPatch {
  readonly text: string;
  readonly template: PatchTemplate;
  /** `substitutable` without `mutate.patchesJson6902`. */
  readonly rest: JsonObject;
}

export type Mutation =
  | { readonly type: 'patches' }
  | { readonly type: 'foreach'; readonly entries: readonly ForeachEntry[] }
  /** mutate-existing (`targets`): run by Kyverno's background controller, never at admission */
  | { readonly type: 'targets' };

export interface CompiledRule {
  readonly name: string;
  readonly match: MatchBlock;
  readonly exclude?: MatchBlock;
  readonly context: readonly ContextEntry[];
  readonly preconditions?: ConditionBlock;
  readonly mutation: Mutation;
  /**
   * What whole-rule substitution works on for a plain (non-foreach) rule: the rule without
   * `match`/`exclude`, so the paths of strings (used by `{{@}}`) are the rule's own paths.
   */
  readonly substitutable: JsonObject;
  /** Set for plain patchesJson6902 rules whose text could be parsed once. */
  readonly json6902?: TemplatedPatch;
  /** The rule refers to the `images` context, which is then computed for the request. */
  readonly usesImages: boolean;
  /** Set on rules generated for pod controllers. */
  readonly autogen?: 'autogen' | 'autogen-cronjob';
  /**
   * Its match or exclude names `roles`/`clusterRoles`, which an AdmissionRequest does not carry (Kyverno
   * looks them up in the cluster's RBAC): the rule is not run unless the caller knows the requester's roles.
   */
  readonly needsRoles?: true;
}

export interface CompiledKyvernoPolicy {
  readonly kind: 'ClusterPolicy' | 'Policy';
  readonly name: string;
  /** Namespace of a `Policy`; undefined for a `ClusterPolicy`. */
  readonly namespace?: string;
  /** `ClusterPolicy/<name>` or `Policy/<namespace>/<name>`: unique in a policy set. */
  readonly id: string;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly applyRules: 'All' | 'One';
  /** `spec.admission: false` policies never run at admission. */
  readonly admission: boolean;
  /** `spec.emitWarning`: each rule that did not skip is reported as an admission warning. */
  readonly emitWarning: boolean;
  /** Declared mutate rules, then the rules generated for pod controllers. */
  readonly rules: readonly CompiledRule[];
  /** `spec.webhookConfiguration.matchConditions`: the policy runs only for requests they hold for. */
  readonly webhookConditions?: WebhookConditions;
}
