/**
 * Top-down operator precedence parser for the original JMESPath grammar, with go-jmespath's binding
 * powers and AST shapes (so that precedence quirks such as `!a.b` meaning `(!a).b` match Go).
 */
import type { JsonValue } from '../../json/index.js';
import { JmesPathSyntaxError } from './errors.js';
import { decodeGoJson } from './json-text.js';
import { tokenize, type Token, type TokenType } from './lexer.js';
import { MAX_EXPRESSION_DEPTH, nestsDeeperThan, TOO_DEEP } from './nesting.js';

export type Comparator = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

export type Node =
  | { type: 'Identity' }
  | { type: 'Current' }
  | { type: 'Field'; name: string }
  | { type: 'Literal'; value: JsonValue }
  | { type: 'Index'; index: number }
  | { type: 'Slice'; start: number | null; stop: number | null; step: number | null }
  | { type: 'Subexpression'; left: Node; right: Node }
  | { type: 'IndexExpression'; left: Node; right: Node }
  | { type: 'Projection'; left: Node; right: Node }
  | { type: 'ValueProjection'; left: Node; right: Node }
  | { type: 'FilterProjection'; left: Node; right: Node; condition: Node }
  | { type: 'Flatten'; child: Node }
  | { type: 'MultiSelectList'; children: Node[] }
  | { type: 'MultiSelectHash'; entries: { key: string; value: Node }[] }
  | { type: 'Or'; left: Node; right: Node }
  | { type: 'And'; left: Node; right: Node }
  | { type: 'Not'; child: Node }
  | { type: 'Comparator'; op: Comparator; left: Node; right: Node }
  | { type: 'Pipe'; left: Node; right: Node }
  | { type: 'Function'; name: string; args: Node[] }
  | { type: 'ExpRef'; child: Node };

const BINDING: Partial<Record<TokenType, number>> = {
  tPipe: 1,
  tOr: 2,
  tAnd: 3,
  tEQ: 5,
  tLT: 5,
  tLTE: 5,
  tGT: 5,
  tGTE: 5,
  tNE: 5,
  tFlatten: 9,
  tStar: 20,
  tFilter: 21,
  tDot: 40,
  tNot: 45,
  tLbrace: 50,
  tLbracket: 55,
  tLparen: 60,
};
const bp = (t: TokenType): number => BINDING[t] ?? 0;

const COMPARATORS: Partial<Record<TokenType, Comparator>> = {
  tEQ: 'eq',
  tNE: 'ne',
  tLT: 'lt',
  tLTE: 'lte',
  tGT: 'gt',
  tGTE: 'gte',
};

/**
 * Integers in index and slice positions, with Go's strconv.Atoi range (int64). go-jmespath's parser
 * returns Atoi's error as it is (no `SyntaxError:` before it).
 */
function atoi(text: string, expression: string, position: number): number {
  if (!/^-?\d+$/.test(text)) {
    throw new JmesPathSyntaxError(`strconv.Atoi: parsing "${text}": invalid syntax`, expression, position, false);
  }
  const n = Number(text);
  // Past ±2^53 a position lies beyond any array, before or after it, so the nearest double serves; only
  // what int64 cannot hold is refused.
  if (!Number.isSafeInteger(n) && (BigInt(text) > INT64_MAX || BigInt(text) < INT64_MIN)) {
    throw new JmesPathSyntaxError(`strconv.Atoi: parsing "${text}": value out of range`, expression, position, false);
  }
  return n;
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

class Parser {
  private readonly tokens: Token[];
  private index = 0;
  /** expression_ calls in progress: bounds the parser's own recursion (parentheses make no node). */
  private depth = 0;
  constructor(private readonly expression: string) {
    this.tokens = tokenize(expression);
  }

  parse(): Node {
    const node = this.expression_(0);
    if (this.current() !== 'tEOF') {
      throw this.error(`Unexpected token at the end of the expression: ${this.current()}`);
    }
    // Each character adds at most two levels (`[]` adds a projection and a flatten), so only a long
    // expression can be too high.
    if (2 * this.expression.length + 1 > MAX_EXPRESSION_DEPTH && nestsDeeperThan(node, MAX_EXPRESSION_DEPTH)) {
      throw new JmesPathSyntaxError(TOO_DEEP, this.expression, 0);
    }
    return node;
  }

  private current(): TokenType {
    return this.tokens[this.index].type;
  }
  private lookahead(n: number): TokenType {
    return this.tokens[Math.min(this.index + n, this.tokens.length - 1)].type;
  }
  private token(): Token {
    return this.tokens[this.index];
  }
  private advance(): void {
    if (this.index < this.tokens.length - 1) this.index++;
  }
  private error(message: string, token: Token = this.token()): JmesPathSyntaxError {
    return new JmesPathSyntaxError(message, this.expression, token.position);
  }
  private match(type: TokenType): void {
    if (this.current() !== type) throw this.error(`Expected ${type}, received: ${this.current()}`);
    this.advance();
  }

  private expression_(bindingPower: number): Node {
    if (++this.depth > MAX_EXPRESSION_DEPTH) throw this.error(TOO_DEEP);
    const leftToken = this.token();
    this.advance();
    let left = this.nud(leftToken);
    let current = this.current();
    while (bindingPower < bp(current)) {
      const opToken = this.token();
      this.advance();
      left = this.led(opToken, left);
      current = this.current();
    }
    this.depth--;
    return left;
  }

  private nud(token: Token): Node {
    switch (token.type) {
      case 'tJSONLiteral': {
        try {
          return { type: 'Literal', value: decodeGoJson(token.value) };
        } catch (e) {
          // go-jmespath's nud returns json.Unmarshal's error unwrapped (no `SyntaxError:`, no literal named).
          throw new JmesPathSyntaxError((e as Error).message, this.expression, token.position, false);
        }
      }
      case 'tStringLiteral':
        return { type: 'Literal', value: token.value };
      case 'tUnquotedIdentifier':
        return { type: 'Field', name: token.value };
      case 'tQuotedIdentifier':
        if (this.current() === 'tLparen') throw this.error("Can't have quoted identifier as function Name.", token);
        return { type: 'Field', name: token.value };
      case 'tStar': {
        const right: Node = this.current() === 'tRbracket' ? { type: 'Identity' } : this.projectionRHS(bp('tStar'));
        return { type: 'ValueProjection', left: { type: 'Identity' }, right };
      }
      case 'tFilter':
        return this.filter({ type: 'Identity' });
      case 'tLbrace':
        return this.multiSelectHash();
      case 'tFlatten': {
        const right = this.projectionRHS(bp('tFlatten'));
        return { type: 'Projection', left: { type: 'Flatten', child: { type: 'Identity' } }, right };
      }
      case 'tLbracket': {
        const t = this.current();
        if (t === 'tNumber' || t === 'tColon') {
          return this.projectIfSlice({ type: 'Identity' }, this.indexExpression());
        }
        if (t === 'tStar' && this.lookahead(1) === 'tRbracket') {
          this.advance();
          this.advance();
          const right = this.projectionRHS(bp('tStar'));
          return { type: 'Projection', left: { type: 'Identity' }, right };
        }
        return this.multiSelectList();
      }
      case 'tCurrent':
        return { type: 'Current' };
      case 'tExpref':
        return { type: 'ExpRef', child: this.expression_(bp('tExpref')) };
      case 'tNot':
        return { type: 'Not', child: this.expression_(bp('tNot')) };
      case 'tLparen': {
        const inner = this.expression_(0);
        this.match('tRparen');
        return inner;
      }
      case 'tEOF':
        throw this.error('Incomplete expression', token);
      default:
        throw this.error(`Invalid token: ${token.type}`, token);
    }
  }

  private led(token: Token, left: Node): Node {
    switch (token.type) {
      case 'tDot': {
        if (this.current() !== 'tStar') {
          return { type: 'Subexpression', left, right: this.dotRHS(bp('tDot')) };
        }
        this.advance();
        return { type: 'ValueProjection', left, right: this.projectionRHS(bp('tDot')) };
      }
      case 'tPipe':
        return { type: 'Pipe', left, right: this.expression_(bp('tPipe')) };
      case 'tOr':
        return { type: 'Or', left, right: this.expression_(bp('tOr')) };
      case 'tAnd':
        return { type: 'And', left, right: this.expression_(bp('tAnd')) };
      case 'tLparen': {
        // go-jmespath calls the function named by the left node's value (`name := node.value`): a field's
        // name, but also a string literal's text and a call's own name (`'abs'(x)` and `abs(y)(x)` call
        // abs on x). Any other node has no string there and panics when evaluated: refused here.
        const name = functionNameOf(left);
        if (name === undefined) throw this.error('Invalid function name', token);
        const args: Node[] = [];
        // go-jmespath accepts arguments separated by commas, and also by nothing at all; an unclosed
        // call reads one more argument at the end, which is an incomplete expression.
        while (this.current() !== 'tRparen') {
          args.push(this.expression_(0));
          if (this.current() === 'tComma') this.match('tComma');
        }
        this.match('tRparen');
        return { type: 'Function', name, args };
      }
      case 'tFilter':
        return this.filter(left);
      case 'tFlatten': {
        const right = this.projectionRHS(bp('tFlatten'));
        return { type: 'Projection', left: { type: 'Flatten', child: left }, right };
      }
      case 'tEQ':
      case 'tNE':
      case 'tGT':
      case 'tGTE':
      case 'tLT':
      case 'tLTE': {
        const right = this.expression_(bp(token.type));
        return { type: 'Comparator', op: COMPARATORS[token.type]!, left, right };
      }
      case 'tLbracket': {
        const t = this.current();
        if (t === 'tNumber' || t === 'tColon') return this.projectIfSlice(left, this.indexExpression());
        this.match('tStar');
        this.match('tRbracket');
        return { type: 'Projection', left, right: this.projectionRHS(bp('tStar')) };
      }
      default:
        throw this.error(`Unexpected token: ${token.type}`, token);
    }
  }

  private indexExpression(): Node {
    if (this.lookahead(0) === 'tColon' || this.lookahead(1) === 'tColon') return this.sliceExpression();
    const tok = this.token();
    const index = atoi(tok.value, this.expression, tok.position);
    this.advance();
    this.match('tRbracket');
    return { type: 'Index', index };
  }

  private sliceExpression(): Node {
    const parts: (number | null)[] = [null, null, null];
    let i = 0;
    let current = this.current();
    while (current !== 'tRbracket' && i < 3) {
      if (current === 'tColon') {
        i++;
        this.advance();
      } else if (current === 'tNumber') {
        const tok = this.token();
        parts[i] = atoi(tok.value, this.expression, tok.position);
        this.advance();
      } else {
        throw this.error(`Expected tColon or tNumber, received: ${current}`);
      }
      current = this.current();
    }
    this.match('tRbracket');
    return { type: 'Slice', start: parts[0], stop: parts[1], step: parts[2] };
  }

  private projectIfSlice(left: Node, right: Node): Node {
    const indexExpr: Node = { type: 'IndexExpression', left, right };
    if (right.type === 'Slice') {
      return { type: 'Projection', left: indexExpr, right: this.projectionRHS(bp('tStar')) };
    }
    return indexExpr;
  }

  private filter(left: Node): Node {
    const condition = this.expression_(0);
    this.match('tRbracket');
    const right: Node = this.current() === 'tFlatten' ? { type: 'Identity' } : this.projectionRHS(bp('tFilter'));
    return { type: 'FilterProjection', left, right, condition };
  }

  private dotRHS(bindingPower: number): Node {
    const t = this.current();
    if (t === 'tQuotedIdentifier' || t === 'tUnquotedIdentifier' || t === 'tStar') return this.expression_(bindingPower);
    if (t === 'tLbracket') {
      this.match('tLbracket');
      return this.multiSelectList();
    }
    if (t === 'tLbrace') {
      this.match('tLbrace');
      return this.multiSelectHash();
    }
    throw this.error('Expected identifier, lbracket, or lbrace');
  }

  private projectionRHS(bindingPower: number): Node {
    const t = this.current();
    if (bp(t) < 10) return { type: 'Identity' };
    if (t === 'tLbracket' || t === 'tFilter') return this.expression_(bindingPower);
    if (t === 'tDot') {
      this.match('tDot');
      return this.dotRHS(bindingPower);
    }
    // go-jmespath's parseProjectionRHS says no more than this.
    throw this.error('Error');
  }

  private multiSelectList(): Node {
    const children: Node[] = [];
    for (;;) {
      children.push(this.expression_(0));
      if (this.current() === 'tRbracket') break;
      this.match('tComma');
    }
    this.match('tRbracket');
    return { type: 'MultiSelectList', children };
  }

  private multiSelectHash(): Node {
    const entries: { key: string; value: Node }[] = [];
    for (;;) {
      const keyToken = this.token();
      if (keyToken.type !== 'tUnquotedIdentifier' && keyToken.type !== 'tQuotedIdentifier') {
        throw this.error('Expected tQuotedIdentifier or tUnquotedIdentifier');
      }
      this.advance();
      this.match('tColon');
      entries.push({ key: keyToken.value, value: this.expression_(0) });
      if (this.current() === 'tComma') {
        this.match('tComma');
      } else if (this.current() === 'tRbrace') {
        this.match('tRbrace');
        break;
      }
    }
    return { type: 'MultiSelectHash', entries };
  }
}

/** The name go-jmespath's led(tLparen) reads from the node before `(`, when it is a string. */
function functionNameOf(left: Node): string | undefined {
  if (left.type === 'Field' || left.type === 'Function') return left.name;
  if (left.type === 'Literal' && typeof left.value === 'string') return left.value;
  return undefined;
}

/** Parses `expression`; throws JmesPathSyntaxError. */
export function parse(expression: string): Node {
  return new Parser(expression).parse();
}
