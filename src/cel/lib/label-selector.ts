import { strconvQuote } from '../../go/index.js';
import { isQualifiedName, isValidLabelValue } from '../../k8s/index.js';

/**
 * Kubernetes label selectors (k8s.io/apimachinery/pkg/labels, ParseToRequirements): `a=b`,
 * `a in (x,y)`, `!a`, `a>5` ..., parsed into requirements with the reference's error texts. Used to
 * fill the selector attributes of an authorization check.
 */

export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export class LabelSelectorError extends Error {}

const enum Tok {
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const SYMBOLS: Record<string, Tok> = {
  ')': Tok.ClosedPar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};

const isSpecial = (c: string) => '=!(),><'.includes(c);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

interface Item {
  tok: Tok;
  lit: string;
}

function lex(s: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && isSpace(s[i])) i++;
    if (i >= s.length) {
      items.push({ tok: Tok.End, lit: '' });
      return items;
    }
    const start = i;
    if (isSpecial(s[i])) {
      // The longest run of operator characters that is an operator (every single one is).
      let end = i + 1;
      while (end < s.length && isSpecial(s[end]) && SYMBOLS[s.slice(i, end + 1)] !== undefined) end++;
      items.push({ tok: SYMBOLS[s.slice(i, end)], lit: s.slice(start, end) });
      i = end;
      continue;
    }
    while (i < s.length && !isSpace(s[i]) && !isSpecial(s[i])) i++;
    const word = s.slice(start, i);
    const kw = SYMBOLS[word];
    items.push({ tok: kw === Tok.In || kw === Tok.NotIn ? kw : Tok.Identifier, lit: word });
  }
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}

  /** In the Values context the keywords in/notin are plain identifiers. */
  private peek(values: boolean): Item {
    const it = this.items[Math.min(this.pos, this.items.length - 1)];
    return values && (it.tok === Tok.In || it.tok === Tok.NotIn) ? { tok: Tok.Identifier, lit: it.lit } : it;
  }

  private next(values: boolean): Item {
    const it = this.peek(values);
    if (this.pos < this.items.length - 1) this.pos++;
    return it;
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    for (;;) {
      const la = this.peek(true);
      if (la.tok === Tok.Identifier || la.tok === Tok.DoesNotExist) {
        let r: LabelRequirement;
        try {
          r = this.requirement();
        } catch (e) {
          if (e instanceof LabelSelectorError) throw new LabelSelectorError(`unable to parse requirement: ${e.message}`);
          throw e;
        }
        out.push(r);
        const t = this.next(true);
        if (t.tok === Tok.End) return out;
        if (t.tok === Tok.Comma) {
          const t2 = this.peek(true);
          if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
            throw new LabelSelectorError(`found '${t2.lit}', expected: identifier after ','`);
          }
          continue;
        }
        throw new LabelSelectorError(`found '${t.lit}', expected: ',' or 'end of string'`);
      }
      if (la.tok === Tok.End) return out;
      throw new LabelSelectorError(`found '${la.lit}', expected: !, identifier, or 'end of string'`);
    }
  }

  private requirement(): LabelRequirement {
    let doesNotExist = false;
    let t = this.next(true);
    if (t.tok === Tok.DoesNotExist) {
      doesNotExist = true;
      t = this.next(true);
    }
    if (t.tok !== Tok.Identifier) throw new LabelSelectorError(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    checkKey(key, '');
    const la = this.peek(true).tok;
    if (doesNotExist || la === Tok.End || la === Tok.Comma) {
      return validated(key, doesNotExist ? '!' : 'exists', []);
    }
    const op = this.operator();
    const values = op === 'in' || op === 'notin' ? this.valueSet() : this.exactValue();
    return validated(key, op, [...new Set(values)].sort());
  }

  private operator(): LabelOperator {
    const t = this.next(false);
    switch (t.tok) {
      case Tok.In:
        return 'in';
      case Tok.Equals:
        return '=';
      case Tok.DoubleEquals:
        return '==';
      case Tok.GreaterThan:
        return 'gt';
      case Tok.LessThan:
        return 'lt';
      case Tok.NotIn:
        return 'notin';
      case Tok.NotEquals:
        return '!=';
    }
    throw new LabelSelectorError(`found '${t.lit}', expected: ${BINARY_OPERATORS}`);
  }

  private exactValue(): string[] {
    const la = this.peek(true).tok;
    if (la === Tok.End || la === Tok.Comma) return [''];
    const t = this.next(true);
    if (t.tok === Tok.Identifier) return [t.lit];
    throw new LabelSelectorError(`found '${t.lit}', expected: identifier`);
  }

  private valueSet(): string[] {
    const open = this.next(true);
    if (open.tok !== Tok.OpenPar) throw new LabelSelectorError(`found '${open.lit}' expected: '('`);
    const la = this.peek(true);
    if (la.tok === Tok.ClosedPar) {
      this.next(true);
      return [''];
    }
    if (la.tok !== Tok.Identifier && la.tok !== Tok.Comma) {
      throw new LabelSelectorError(`found '${la.lit}', expected: ',', ')' or identifier`);
    }
    const values = this.identifiers();
    if (this.next(true).tok !== Tok.ClosedPar) throw new LabelSelectorError(`found '${la.lit}', expected: ')'`);
    return values;
  }

  private identifiers(): string[] {
    const values: string[] = [];
    for (;;) {
      const t = this.next(true);
      if (t.tok === Tok.Identifier) {
        values.push(t.lit);
        const t2 = this.peek(true);
        if (t2.tok === Tok.Comma) continue;
        if (t2.tok === Tok.ClosedPar) return values;
        throw new LabelSelectorError(`found '${t2.lit}', expected: ',' or ')'`);
      }
      if (t.tok === Tok.Comma) {
        if (values.length === 0) values.push('');
        const t2 = this.peek(true);
        if (t2.tok === Tok.ClosedPar) {
          values.push('');
          return values;
        }
        if (t2.tok === Tok.Comma) {
          this.next(true);
          values.push('');
        }
        continue;
      }
      throw new LabelSelectorError(`found '${t.lit}', expected: ',', or identifier`);
    }
  }
}

function invalid(path: string, value: string, detail: string): LabelSelectorError {
  return new LabelSelectorError(`${path ? path + ': ' : ''}Invalid value: ${strconvQuote(value)}: ${detail}`);
}

function checkKey(key: string, path: string): void {
  const errs = isQualifiedName(key);
  if (errs.length) throw invalid(path, key, errs.join('; '));
}

/** labels.NewRequirement's checks. */
function validated(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const problems: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) problems.push(invalid('key', key, keyErrs.join('; ')).message);
  if ((operator === '=' || operator === '==' || operator === '!=') && values.length !== 1) {
    problems.push('values: Invalid value: exact-match compatibility requires one single value');
  }
  if (operator === 'gt' || operator === 'lt') {
    values.forEach((v, i) => {
      if (!/^[+-]?[0-9]+$/.test(v)) {
        problems.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer").message);
      }
    });
  }
  values.forEach((v, i) => {
    const errs = isValidLabelValue(v);
    if (errs.length) problems.push(invalid(`values[${i}][${key}]`, v, errs.join('; ')).message);
  });
  if (problems.length === 1) throw new LabelSelectorError(problems[0]);
  if (problems.length > 1) throw new LabelSelectorError(`[${problems.join(', ')}]`);
  return { key, operator, values };
}

/** labels.ParseToRequirements. */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  return new Parser(lex(selector)).parse();
}
