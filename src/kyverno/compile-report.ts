/**
 * Where every part of policy compiling (match, context, conditions, mutate, foreach) writes what it
 * finds, so that one pass reports all of a document's problems with their field paths instead of
 * stopping at the first; compile.ts turns it into the CompileResult.
 */
import { boundMessage } from '../guard/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/index.js';
import type { KindSelector } from './types.js';

export interface PolicyProblem {
  /** Field path inside the document, e.g. `spec.rules[2].mutate.patchesJson6902`. */
  readonly path: string;
  readonly message: string;
}

/**
 * Something that compiles but would fail, or do nothing, at admission (issue 10). The policy compiles
 * (a caller that runs it directly sees the failure at evaluation, as before); a policy set decides what
 * to do by `kind` (src/policyset, README "What cannot run off-cluster"):
 * - `expression`: a JMESPath expression that does not parse or calls an unknown function — every request
 *   reaching it fails. The set refuses the policy (unless built with `compileErrors: 'keep'`).
 * - `cluster`: a context entry only a cluster can fill (`apiCall`, `imageRegistry`, `globalReference`) —
 *   every request the rule matches fails. The set refuses the policy, unless context values stand in
 *   for such entries (`amender test`, `amender apply --values-file/--set`, as Kyverno's CLI).
 * - `required`: what Kyverno refuses when the policy is created: a match filter without `kinds`, a
 *   top-level `patchesJson6902` that does not decode. The set refuses the policy.
 * - `variable`: a `{{ }}` variable Kyverno's policy validation does not know (validation/
 *   invalid-variables.ts): nothing at admission defines it. The set refuses the policy, unless it is
 *   told to keep it (`BuildOptions.unknownVariables`: `amender apply` and `test`, whose values may define
 *   any variable).
 * - `not-run`: the rule never runs at admission (`mutate.targets`; `roles`/`clusterRoles`, which an
 *   admission request does not carry, unless the caller gives them; validate / generate / verifyImages
 *   rules). The policy stays in force without that rule.
 * A `configMap` entry the set's documents do not hold is a `cluster` problem the set adds itself
 * (`references.configMaps`), as is an unknown kind a kept problem (`references.kinds`).
 */
export interface AdmissionFinding extends PolicyProblem {
  readonly kind: 'expression' | 'cluster' | 'required' | 'variable' | 'not-run';
}

/**
 * Messages and paths quote the policy's own text (an expression, a key), which may be any length: each
 * is kept to the review messages' bound (src/guard boundMessage), so that a policy with a 400 KB
 * expression gets a readable problem instead of one that repeats it (800 KB in `validate` and /readyz).
 */
export class Report {
  readonly problems: PolicyProblem[] = [];
  readonly warnings: PolicyProblem[] = [];
  readonly findings: AdmissionFinding[] = [];
  readonly kinds: { path: string; text: string; selector: KindSelector }[] = [];
  readonly configMaps: { path: string; namespace: string; name: string }[] = [];
  error(path: string, message: string): void {
    this.problems.push({ path: boundMessage(path), message: boundMessage(message) });
  }
  warn(path: string, message: string): void {
    this.warnings.push({ path: boundMessage(path), message: boundMessage(message) });
  }
  find(path: string, message: string, kind: AdmissionFinding['kind']): void {
    this.findings.push({ path: boundMessage(path), message: boundMessage(message), kind });
  }
  hasFinding(path: string, kind: AdmissionFinding['kind']): boolean {
    const at = boundMessage(path);
    return this.findings.some((f) => f.path === at && f.kind === kind);
  }
  /** Where findings and references stand, to drop what a generated rule repeats of its source rule. */
  mark(): [number, number, number] {
    return [this.findings.length, this.kinds.length, this.configMaps.length];
  }
  rewind([findings, kinds, configMaps]: [number, number, number]): void {
    this.findings.length = findings;
    this.kinds.length = kinds;
    this.configMaps.length = configMaps;
  }
}

/** Calls `each` for every object of a list field, reporting what is not a list or not an object. */
export function eachObject(raw: JsonValue, path: string, report: Report, nonEmpty: boolean, each: (entry: JsonObject, at: string) => void): void {
  if (!Array.isArray(raw) || (nonEmpty && raw.length === 0)) {
    report.error(path, nonEmpty ? 'must be a non-empty list' : 'must be a list');
    return;
  }
  raw.forEach((entry, i) => {
    const at = `${path}[${i}]`;
    if (isJsonObject(entry)) each(entry, at);
    else report.error(at, 'must be an object');
  });
}
