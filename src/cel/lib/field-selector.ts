/**
 * Kubernetes field selectors (k8s.io/apimachinery/pkg/fields): `a=b,c!=d` parsed into sorted
 * requirements, with the reference's error texts. Used to fill the selector attributes of an
 * authorization check.
 */

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export class SelectorParseError extends Error {}

/** Splits on commas that are not escaped with a backslash. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    if (escaped) escaped = false;
    else if (selector[i] === '\\') escaped = true;
    else if (selector[i] === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const OPERATORS = ['!=', '==', '='] as const;

/** The first unescaped operator splits the term into field, operator and value. */
function splitTerm(term: string): [string, (typeof OPERATORS)[number], string] | undefined {
  let escaped = false;
  for (let i = 0; i < term.length; i++) {
    if (escaped) {
      escaped = false;
      continue;
    }
    if (term[i] === '\\') {
      escaped = true;
      continue;
    }
    for (const op of OPERATORS) if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
  }
  return undefined;
}

/** fields.UnescapeValue: only \\, \, and \= are escapes; an unescaped , or = is an error. */
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      const next = s[i + 1];
      if (next !== '\\' && next !== ',' && next !== '=') {
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: ${s}`);
      }
      out += next;
      i++;
    } else if (c === ',' || c === '=') {
      throw new SelectorParseError(`invalid field selector: unescaped ${c}: ${s}`);
    } else out += c;
  }
  return out;
}

/** fields.ParseSelector(selector).Requirements(). */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  const parts = splitTerms(selector).sort();
  const out: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new SelectorParseError(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [field, op, rhs] = t;
    out.push({ field, operator: op === '!=' ? '!=' : '=', value: unescapeValue(rhs) });
  }
  return out;
}
