/**
 * Label selectors as Kyverno evaluates them for `selector` and `namespaceSelector`: a standard
 * `metav1.LabelSelector`, except that `matchLabels` keys and values may hold wildcards
 * (`wildcards.ReplaceInSelector`), which match any label that fits.
 */
import { getOwn, isJsonObject, type JsonValue } from '../../json/index.js';
import { hasWildcard, wildcardMatch } from '../../go/index.js';
import { isQualifiedName, isValidLabelValue } from '../../k8s/index.js';

export type Labels = Readonly<Record<string, string>>;

interface Requirement {
  readonly key: string;
  readonly op: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values: readonly string[];
}

export interface CompiledSelector {
  readonly matchLabels: readonly (readonly [string, string])[];
  readonly requirements: readonly Requirement[];
  /** `{}`: matches every set of labels. */
  readonly empty: boolean;
  /**
   * A key or value that is no valid label key or value, outside the matchLabels entries holding a
   * wildcard: LabelSelectorAsSelector fails on it, and Kyverno's CheckSelector error counts as a
   * selector that does not match (Kyverno's API validation refuses such a `selector` in a policy, not a
   * `namespaceSelector`). A wildcard entry needs no check: whether or not its '0'-replaced text is
   * valid, a label it did not match is not there either.
   */
  readonly invalid: boolean;
}

/** Parses a selector from a policy; returns an error message for a malformed one. */
export function compileSelector(raw: JsonValue): CompiledSelector | string {
  if (!isJsonObject(raw)) return 'a label selector must be an object';
  const matchLabels: [string, string][] = [];
  const requirements: Requirement[] = [];
  const labels = getOwn(raw, 'matchLabels');
  if (labels !== undefined && labels !== null) {
    if (!isJsonObject(labels)) return 'matchLabels must be a map of strings';
    for (const [k, v] of Object.entries(labels)) {
      if (typeof v !== 'string') return `matchLabels.${k} must be a string`;
      matchLabels.push([k, v]);
    }
  }
  const expressions = getOwn(raw, 'matchExpressions');
  if (expressions !== undefined && expressions !== null) {
    if (!Array.isArray(expressions)) return 'matchExpressions must be a list';
    for (const [i, e] of expressions.entries()) {
      if (!isJsonObject(e)) return `matchExpressions[${i}] must be an object`;
      const key = getOwn(e, 'key');
      const op = getOwn(e, 'operator');
      const values = getOwn(e, 'values') ?? [];
      if (typeof key !== 'string' || key === '') return `matchExpressions[${i}].key must be a non-empty string`;
      if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
        return `matchExpressions[${i}].values must be a list of strings`;
      }
      if (op === 'In' || op === 'NotIn') {
        if (values.length === 0) return `matchExpressions[${i}]: operator ${op} needs at least one value`;
      } else if (op === 'Exists' || op === 'DoesNotExist') {
        if (values.length > 0) return `matchExpressions[${i}]: operator ${op} takes no values`;
      } else {
        return `matchExpressions[${i}].operator must be In, NotIn, Exists or DoesNotExist, not ${JSON.stringify(op)}`;
      }
      requirements.push({ key, op, values: values as string[] });
    }
  }
  const invalid =
    matchLabels.some(([k, v]) => !hasWildcard(k) && !hasWildcard(v) && !validLabel(k, [v])) || requirements.some((r) => !validLabel(r.key, r.values));
  return { matchLabels, requirements, empty: matchLabels.length === 0 && requirements.length === 0, invalid };
}

/** labels.NewRequirement's checks of a key and its values. */
function validLabel(key: string, values: readonly string[]): boolean {
  return isQualifiedName(key).length === 0 && values.every((v) => isValidLabelValue(v).length === 0);
}

function label(labels: Labels, key: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(labels, key) ? labels[key] : undefined;
}

export function selectorMatches(selector: CompiledSelector, labels: Labels): boolean {
  if (selector.invalid) return false;
  for (const [k, v] of selector.matchLabels) {
    if (hasWildcard(k) || hasWildcard(v)) {
      if (!Object.keys(labels).some((ak) => wildcardMatch(k, ak) && wildcardMatch(v, labels[ak]))) return false;
    } else if (label(labels, k) !== v) {
      return false;
    }
  }
  for (const r of selector.requirements) {
    const value = label(labels, r.key);
    switch (r.op) {
      case 'In':
        if (value === undefined || !r.values.includes(value)) return false;
        break;
      case 'NotIn':
        if (value !== undefined && r.values.includes(value)) return false;
        break;
      case 'Exists':
        if (value === undefined) return false;
        break;
      case 'DoesNotExist':
        if (value !== undefined) return false;
        break;
    }
  }
  return true;
}

/** The string-valued entries of a labels/annotations map found in a document. */
export function stringMap(value: JsonValue | undefined): Labels {
  if (!isJsonObject(value)) return {};
  // Null prototype: a `__proto__` label stays an ordinary entry.
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}
