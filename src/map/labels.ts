/**
 * Label selectors (`metav1.LabelSelector`): API validation, conversion to a runtime selector (with the
 * errors `LabelSelectorAsSelector` gives for selectors that skipped validation) and matching.
 */
import { FieldPath, forbidden, invalid, required, type FieldError } from './field-errors.js';
import { aggregateMessages } from './match-conditions.js';
import { jsonString, strconvQuote } from '../go/index.js';
import { isQualifiedName, isValidLabelValue } from '../k8s/index.js';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type Labels = Readonly<Record<string, string>>;

interface Requirement {
  key: string;
  op: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values: readonly string[];
}

/** A parsed selector. `empty` is true for the selector that matches everything without looking. */
export interface Selector {
  readonly empty: boolean;
  matches(labels: Labels | undefined): boolean;
}

const EVERYTHING: Selector = { empty: true, matches: () => true };
const NOTHING: Selector = { empty: false, matches: () => false };

function ownLabel(labels: Labels | undefined, key: string): string | undefined {
  return labels && Object.prototype.hasOwnProperty.call(labels, key) ? labels[key] : undefined;
}

function requirementMatches(r: Requirement, labels: Labels | undefined): boolean {
  const value = ownLabel(labels, r.key);
  switch (r.op) {
    case 'In':
      return value !== undefined && r.values.includes(value);
    case 'NotIn':
      return value === undefined || !r.values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
  }
}

export type SelectorResult = { selector: Selector; error?: undefined } | { selector?: undefined; error: string };

/**
 * labels.NewRequirement's field errors as field.Error prints them (a string %q, a []string as its JSON,
 * the empty values list as null: LabelSelectorAsSelector passes `append([]string(nil), values...)`, nil
 * when there are none), at the paths it gives them: a bad value under `values[i][key]` (path.Key).
 */
function requirementErrors(key: string, op: Requirement['op'], values: readonly string[]): string[] {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(`key: Invalid value: ${strconvQuote(key)}: ${keyErrs.join('; ')}`);
  if ((op === 'In' || op === 'NotIn') && values.length === 0) {
    errs.push("values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty");
  }
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length !== 0) {
    errs.push(`values: Invalid value: [${values.map(jsonString).join(',')}]: values set must be empty for exists and does not exist`);
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(`values[${i}][${key}]: Invalid value: ${strconvQuote(v)}: ${valueErrs.join('; ')}`);
  });
  return errs;
}

const SELECTS_EVERYTHING: SelectorResult = { selector: EVERYTHING };

/** Selectors of a policy set are parsed once, not on every request (policy documents never change). */
const parsedSelectors = new WeakMap<LabelSelector, SelectorResult>();

/**
 * `LabelSelectorAsSelector`: null selects nothing, `{}` selects everything; an invalid key, value or
 * operator is an error (selectors loaded through validation never produce one).
 */
export function toSelector(selector: LabelSelector | null | undefined): SelectorResult {
  if (selector === null || selector === undefined) return { selector: NOTHING };
  // `{}`, the default of every policy that has none, without the look-up below.
  if (selector.matchLabels === undefined && selector.matchExpressions === undefined) return SELECTS_EVERYTHING;
  let parsed = parsedSelectors.get(selector);
  if (parsed === undefined) parsedSelectors.set(selector, (parsed = parseSelector(selector)));
  return parsed;
}

function parseSelector(selector: LabelSelector): SelectorResult {
  const labels = selector.matchLabels ?? {};
  const expressions = selector.matchExpressions ?? [];
  const labelKeys = Object.keys(labels).sort();
  if (labelKeys.length + expressions.length === 0) return { selector: EVERYTHING };
  const requirements: Requirement[] = [];
  for (const key of labelKeys) {
    const errs = requirementErrors(key, 'In', [labels[key]]);
    if (errs.length) return { error: aggregateMessages(errs) };
    requirements.push({ key, op: 'In', values: [labels[key]] });
  }
  for (const expr of expressions) {
    const op = expr.operator;
    if (op !== 'In' && op !== 'NotIn' && op !== 'Exists' && op !== 'DoesNotExist') {
      return { error: `${strconvQuote(String(op ?? ''))} is not a valid label selector operator` };
    }
    const values = expr.values ?? [];
    const errs = requirementErrors(expr.key, op, values);
    if (errs.length) return { error: aggregateMessages(errs) };
    requirements.push({ key: expr.key, op, values: [...values] });
  }
  return {
    selector: {
      empty: false,
      matches: (l) => requirements.every((r) => requirementMatches(r, l)),
    },
  };
}

/** `metav1validation.ValidateLabelSelector` with strict label values (the MAP API's option). */
export function validateLabelSelector(selector: LabelSelector, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const labelsPath = path.child('matchLabels');
  for (const key of Object.keys(selector.matchLabels ?? {}).sort()) {
    for (const msg of isQualifiedName(key)) errs.push(invalid(labelsPath, key, msg));
    const value = selector.matchLabels![key];
    for (const msg of isValidLabelValue(value)) errs.push(invalid(labelsPath, value, msg));
  }
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const p = path.child('matchExpressions').index(i);
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(p.child('operator'), expr.operator, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(expr.key)) errs.push(invalid(p.child('key'), expr.key, msg));
    values.forEach((v, j) => {
      for (const msg of isValidLabelValue(v)) errs.push(invalid(p.child('values').index(j), v, msg));
    });
  });
  return errs;
}

