/**
 * Kyverno's check that every `{{ }}` variable of a rule is one it knows (hasInvalidVariables in
 * pkg/validation/policy/validate.go). Kyverno substitutes the whole rule against a mock context that
 * answers `null` for a known variable and refuses any other: `$(…)` references first, then every
 * string and map key, innermost variables first and the string scanned again after each pass (so the
 * outer variable of `{{ images.containers."{{ element.name }}".tag }}` is checked with `null` in place
 * of the inner one), except after a shallow `{{- }}` variable, which ends the string's scan. Escaped
 * `\{{ }}` is not a variable. `{{@}}` is the same place in `request.object` (or `target`), which must
 * parse. A rule with `mutate.targets` is checked twice: its context, preconditions and each target's
 * resource fields without the target variables, then whole with them.
 *
 * Not ported, deliberately: Kyverno also refuses a variable in a top-level `patchesJson6902` path, which
 * Amender allows (src/kyverno/README.md). Rules made by autogen are not checked: they only rewrite
 * `request.object.spec` / `.metadata` paths of their source rule, which cannot turn a known variable
 * into an unknown one, and Kyverno reports its first problem, always one of a declared rule.
 */
import { DEFAULT_MAX_VALUE_BYTES } from '../../guard/index.js';
import { getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { findVariables, isShallow, variableExpression } from '../context/variable-syntax.js';
import { substituteReferences } from '../context/references.js';
import { messageOf } from '../errors.js';
import { allowedVariablesOf, type AllowedVariables } from './allowed-variables.js';
import { selectionHasVariables } from './rule-checks.js';
import { selfPathExpression, selfPathPrefix, traversalPath } from '../context/self-path.js';

export interface VariableProblem {
  /** Index of the rule in `spec.rules`. */
  readonly rule: number;
  /** Segments of the offending string inside the rule (numbers for list indices; a map key's own segment included). */
  readonly at: readonly (string | number)[];
  readonly message: string;
  /** `expression`: the variable is no JMESPath (or empty); `unknown`: no known variable; `other`: the rest. */
  readonly cause: 'unknown' | 'expression' | 'other';
}

/** The first variable Kyverno refuses in `rules` (checked in order), as Kyverno words it; none when all are known. */
export function invalidVariablesProblem(rules: readonly JsonValue[], background: boolean): VariableProblem | undefined {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    if (!isJsonObject(rule)) continue;
    const problem = ruleProblem(rule, i, background);
    if (problem) return problem;
  }
  return undefined;
}

function ruleProblem(rule: JsonObject, index: number, background: boolean): VariableProblem | undefined {
  const name = typeof getOwn(rule, 'name') === 'string' ? (getOwn(rule, 'name') as string) : '';
  // Variables in match / exclude are refused on their own (rule-checks.ts); Kyverno stops at them.
  if (selectionHasVariables(rule)) return undefined;
  const imageRef = imageReferenceWithVariable(rule);
  if (imageRef) return { rule: index, at: imageRef, message: `rule "${name}" should not have variables in image reference section`, cause: 'other' };
  const checked = withoutAttestationConditions(rule);
  const mutate = getOwn(checked, 'mutate');
  const targets = isJsonObject(mutate) ? getOwn(mutate, 'targets') : undefined;
  const hasTargets = targets !== undefined && targets !== null;
  if (hasTargets && Array.isArray(targets)) {
    const targetOnly = targetsOnly(checked);
    const held = (getOwn(targetOnly, 'mutate') as JsonObject).targets as JsonObject[];
    for (let i = 0; i < targets.length; i++) {
      held[i] = resourceSpecOf(targets[i]);
      const fault = firstVariableFault(targetOnly, allowedVariablesOf(targetOnly, background, false));
      if (fault) return { rule: index, at: fault.at, message: `invalid variables defined at mutate.targets[${i}]: ${fault.message}`, cause: fault.cause };
    }
  }
  const fault = firstVariableFault(checked, allowedVariablesOf(checked, background, hasTargets));
  if (fault) return { rule: index, at: fault.at, message: `variable substitution failed for rule ${name}: ${fault.message}`, cause: fault.cause };
  return undefined;
}

/** Kyverno skips the conditions of image attestations: their variables come from the attestation. */
function withoutAttestationConditions(rule: JsonObject): JsonObject {
  const verifyImages = getOwn(rule, 'verifyImages');
  if (!Array.isArray(verifyImages)) return rule;
  const copy: JsonObject = { ...rule };
  setOwn(
    copy,
    'verifyImages',
    verifyImages.map((v) => {
      const attestations = isJsonObject(v) ? getOwn(v, 'attestations') : undefined;
      if (!Array.isArray(attestations)) return v;
      const stripped = attestations.map((a) => {
        if (!isJsonObject(a)) return a;
        const { conditions: _dropped, ...rest } = a;
        return rest;
      });
      return { ...(v as JsonObject), attestations: stripped };
    }),
  );
  return copy;
}

/** An image reference (`imageReferences`, or the older `image`) holding a variable: its segments. */
function imageReferenceWithVariable(rule: JsonObject): (string | number)[] | undefined {
  const verifyImages = getOwn(rule, 'verifyImages');
  if (!Array.isArray(verifyImages)) return undefined;
  for (let i = 0; i < verifyImages.length; i++) {
    const v = verifyImages[i];
    if (!isJsonObject(v)) continue;
    const refs = getOwn(v, 'imageReferences');
    const list = Array.isArray(refs) ? refs : [];
    for (let j = 0; j < list.length; j++) {
      if (typeof list[j] === 'string' && findVariables(list[j] as string).length > 0) return ['verifyImages', i, 'imageReferences', j];
    }
    const image = getOwn(v, 'image');
    if (typeof image === 'string' && findVariables(image).length > 0) return ['verifyImages', i, 'image'];
  }
  return undefined;
}

/** The rule Kyverno checks for its targets (ruleWithoutPattern): context, preconditions and empty targets. */
function targetsOnly(rule: JsonObject): JsonObject {
  const targets = getOwn(getOwn(rule, 'mutate') as JsonObject, 'targets') as JsonValue[];
  const out: JsonObject = { name: '', match: {} };
  for (const key of ['context', 'preconditions']) {
    const value = getOwn(rule, key);
    if (value !== undefined && value !== null) setOwn(out, key, value);
  }
  setOwn(out, 'mutate', { targets: targets.map(() => ({})) });
  return out;
}

const RESOURCE_SPEC = ['apiVersion', 'kind', 'namespace', 'name', 'uid', 'selector'];

/** A target's resource fields (its context and preconditions left out). */
function resourceSpecOf(target: JsonValue): JsonObject {
  const out: JsonObject = {};
  if (!isJsonObject(target)) return out;
  for (const key of RESOURCE_SPEC) {
    const value = getOwn(target, key);
    if (value !== undefined && value !== null) setOwn(out, key, value);
  }
  return out;
}

interface Fault {
  readonly at: readonly (string | number)[];
  readonly message: string;
  readonly cause: VariableProblem['cause'];
}

const OVER_BOUND = new Error('references insert more text than a review may build');

/** The review's default value bound, for the references a load-time check expands. */
const LOAD_BOUND = {
  checkSize(size: number): void {
    if (size > DEFAULT_MAX_VALUE_BYTES) throw OVER_BOUND;
  },
};

/** Substitutes `document` (references, then variables) against `allowed`; the first refusal. */
export function firstVariableFault(document: JsonObject, allowed: AllowedVariables): Fault | undefined {
  let resolved: JsonValue;
  try {
    resolved = substituteReferences(document, LOAD_BOUND);
  } catch (error) {
    // References inserting more text than a review may build: the rule fails at admission with the size
    // message, as any value over the bound does; its variables are not checked here (Kyverno accepts it).
    if (error === OVER_BOUND) return undefined;
    return { at: [], message: messageOf(error), cause: 'other' };
  }
  const segments: (string | number)[] = [];
  const visit = (value: JsonValue): Fault | undefined => {
    if (typeof value === 'string') return stringFault(value, segments, allowed);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        segments.push(i);
        const fault = visit(value[i]);
        segments.pop();
        if (fault) return fault;
      }
    } else if (isJsonObject(value)) {
      for (const key of Object.keys(value)) {
        // A key is substituted at its map's path; its own segment names it in the report.
        const keyFault = stringFault(key, segments, allowed);
        if (keyFault) return { ...keyFault, at: [...segments, key] };
        segments.push(key);
        const fault = visit(value[key]);
        segments.pop();
        if (fault) return fault;
      }
    }
    return undefined;
  };
  return visit(resolved);
}

/**
 * Scans of one string the check makes at most. Each scan reads the whole string and resolves the
 * innermost variables left, so a string nesting variables n deep takes n scans: a 1 MB policy document of
 * nested `{{ to_string(` took minutes to load. Real policies nest two or three deep; past this the check
 * stops, the string unchecked (at admission the same scans run under the review's deadline).
 */
export const MAX_VARIABLE_SCANS = 100;

/** One string's substitution (substituteVariablesIfAny with the mock context): its first refusal. */
export function stringFault(text: string, segments: readonly (string | number)[], allowed: AllowedVariables): Fault | undefined {
  let value = text;
  let matches = findVariables(value);
  for (let scans = 1; matches.length > 0; scans++) {
    if (scans > MAX_VARIABLE_SCANS) return undefined;
    const original = value;
    let shallow = false;
    // Replaced where the scan found each variable, in one pass (Kyverno's replace-the-first-occurrence,
    // one variable at a time, lands on the same places: see substituteIn in ../context/variables.ts).
    let replaced = '';
    let last = 0;
    for (const m of matches) {
      const prefix = m[1];
      const variableText = m[2];
      // replaceBracesAndTrimSpaces: Go's strings.TrimSpace, whose spaces are not JavaScript's trim()'s.
      const inside = variableText.replaceAll('{{', '').replaceAll('}}', '');
      shallow = isShallow(inside);
      let variable = variableExpression(inside);
      if (variable === '@') {
        const path = traversalPath(segments);
        variable = selfPathExpression(path, selfPathPrefix(allowed.check('target') === undefined));
      }
      const fault = allowed.check(variable);
      if (fault) {
        const message = fault.unknown ? fault.message : `failed to resolve ${variable} at path ${traversalPath(segments)}: ${fault.message}`;
        return { at: [...segments], message, cause: fault.unknown ? 'unknown' : 'expression' };
      }
      // The mock's answer is null: a whole-string variable ends the string, a part becomes "null".
      if (original === variableText) return undefined;
      replaced += `${value.slice(last, m.index)}${prefix}null`;
      last = m.index + m[0].length;
    }
    value = replaced + value.slice(last);
    matches = shallow ? [] : findVariables(value);
  }
  return undefined;
}
