/**
 * Recursive-descent parser for the CEL grammar (cel-spec CEL.g4), including the optional syntax
 * (`a.?b`, `a[?b]`, `[?x]`, `{?k: v}`, `T{?f: v}`) and message construction (`a.b.C{f: v}`).
 * Macros are expanded while parsing, as cel-go does (macros.ts).
 */
import { CelUint, UINT64_MAX, INT64_MAX, INT64_MIN, type CelValue } from './values.js';
import { LexError, Tok, tokenize, tokenText, type Token } from './lexer.js';
import { Op, type Expr, type MapEntry, type StructField } from './ast.js';
import type { CelIssue } from './errors.js';
import { expandMacro, type MacroFactory, type MacroLookup } from './macros.js';
import { canStartExpression, canStartMember, expectedTokens, followsOperand, type StartContext } from './expected-tokens.js';

/** Words that cannot be used as identifiers (they remain valid as field names). */
const RESERVED = new Set([
  'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop',
  'package', 'namespace', 'return', 'var', 'void', 'while',
]);

export interface ParseResult {
  expr?: Expr;
  issues: CelIssue[];
  /** Number of node ids used (ids are 1..maxId). */
  maxId: number;
}

export interface ParseOptions {
  maxRecursionDepth?: number;
  maxCodePoints?: number;
  /** The environment's own macros, beside the standard ones. */
  macros?: MacroLookup;
}

/** A lexer error as an issue: a grammar error reads 'Syntax error: ...', an unescape error its text alone. */
function lexIssue(e: LexError): CelIssue {
  return { message: e.syntax ? `Syntax error: ${e.message}` : e.message, offset: e.pos };
}

class ParseError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

export function parse(source: string, options: ParseOptions = {}): ParseResult {
  const maxCodePoints = options.maxCodePoints ?? 100_000;
  if (source.length > maxCodePoints && [...source].length > maxCodePoints) {
    return {
      issues: [{ message: `expression code point size exceeds limit: size: ${[...source].length}, limit ${maxCodePoints}`, offset: -1 }],
      maxId: 0,
    };
  }
  let tokens: Token[];
  // What the lexer skipped (cel-go reports each and parses the tokens left, its errors sorted with them).
  const skipped: LexError[] = [];
  try {
    tokens = tokenize(source, skipped);
  } catch (e) {
    if (e instanceof LexError) return { issues: [lexIssue(e)], maxId: 0 };
    throw e;
  }
  const p = new Parser(source, tokens, options.maxRecursionDepth ?? 250, options.macros);
  for (const e of skipped) p.issues.push(lexIssue(e));
  try {
    const expr = p.parseExpr();
    if (p.peek().tok !== Tok.EOF) p.mismatch(Tok.EOF, '<EOF>');
    if (p.issues.length) return { issues: p.issues, maxId: p.nextId - 1 };
    if (p.tooDeep) return { issues: [{ message: 'max recursion depth exceeded', offset: -1 }], maxId: p.nextId - 1 };
    return { expr, issues: [], maxId: p.nextId - 1 };
  } catch (e) {
    if (e instanceof ParseError) return { issues: [...p.issues, { message: e.message, offset: e.pos }], maxId: p.nextId - 1 };
    if (e instanceof LexError) return { issues: [lexIssue(e)], maxId: 0 };
    throw e;
  }
}

/**
 * Two depth limits, cel-go's (parser.go), both `maxRecursionDepth` (250 by default; Kubernetes keeps it):
 *
 * - while parsing, the nesting of `expr` rules (parentheses, list and map elements, arguments, indexes,
 *   the false branch of `?:`), cel-go's recursionListener: "expression recursion limit exceeded: 250";
 * - then, on the parse tree, the depth of the nodes cel-go's visitor counts (checkAndIncrementRecursionDepth:
 *   `?:`, a relation, an arithmetic operator, a select, a member call, an index; `&&`/`||` are not,
 *   their chains being balanced): "max recursion depth exceeded". Left-associative chains (`1 + 1 + …`,
 *   `a.b.c…`) are parsed by loops here, so that depth is computed bottom-up (`h`, the counted height of
 *   the subtree just parsed) instead of by recursion; the AST the checker and planner recurse over is
 *   no deeper than these limits allow.
 */
/** What each construct takes after the expression inside it (cel-go's CEL.g4). */
const FOLLOW_INPUT = [Tok.EOF];
const FOLLOW_TRUE_BRANCH = [Tok.Colon];
const FOLLOW_INDEX = [Tok.RBracket];
const FOLLOW_PAREN = [Tok.RParen];
const FOLLOW_ARGUMENT = [Tok.Comma, Tok.RParen];
const FOLLOW_ELEMENT = [Tok.Comma, Tok.RBracket];
const FOLLOW_KEY = [Tok.Colon];
const FOLLOW_ENTRY = [Tok.Comma, Tok.RBrace];

class Parser implements MacroFactory {
  private i = 0;
  private depth = 0;
  /** The counted height (see above) of the expression the last parse method returned. */
  private h = 0;
  /** Some subtree's counted height passed the limit: "max recursion depth exceeded" once parsing ends. */
  tooDeep = false;
  /**
   * For each construct opened and not yet closed ('(', '[', '{', a '?' awaiting its ':'), the tokens it
   * takes after the expression inside it; the whole expression is followed by the end of input. What
   * may follow a missing closer depends on the construct around it (see mayFollow).
   */
  private readonly follows: (readonly Tok[])[] = [FOLLOW_INPUT];
  /** The construct whose expression starts at token `startAt`, for the tokens a syntax error names there. */
  private startContext: StartContext = 'expr';
  private startAt = -1;
  nextId = 1;
  readonly issues: CelIssue[] = [];

  constructor(
    private readonly src: string,
    private readonly toks: Token[],
    private readonly maxDepth: number,
    private readonly macros?: MacroLookup,
  ) {}

  // ---- token helpers
  peek(k = 0): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)];
  }
  private next(): Token {
    return this.toks[this.i++];
  }
  private accept(tok: Tok): Token | undefined {
    if (this.toks[this.i].tok === tok) return this.toks[this.i++];
    return undefined;
  }
  /**
   * The end of an empty literal: `]` / `}`, or a lone comma before it. cel-go's grammar reads
   * `'[' listInit? ','? ']'` (and the same for maps and messages), so `[,]` is an empty list.
   */
  private acceptEmpty(close: Tok): boolean {
    if (this.accept(close)) return true;
    if (this.peek().tok !== Tok.Comma) return false;
    // A leading comma can only be that lone one, so the closer must follow ('[, 2]': extraneous '2').
    this.i++;
    this.expect(close, close === Tok.RBracket ? "']'" : "'}'");
    return true;
  }
  private expect(tok: Tok, what: string): Token {
    const t = this.toks[this.i];
    if (t.tok !== tok) this.mismatch(tok, what);
    this.i++;
    return t;
  }
  /**
   * ANTLR's recovery when a token must be matched (recoverInline), as its first error: the token read
   * is 'extraneous' when the one after it is the one expected (single-token deletion), the expected one
   * is 'missing' when the token read may follow it (single-token insertion: 'f(x' lacks its ')', '{k v}'
   * its ':'), else the input is 'mismatched'.
   */
  mismatch(tok: Tok, what: string): never {
    const t = this.peek();
    const text = tokenText(t, this.src);
    if (t.tok !== Tok.EOF && this.peek(1).tok === tok) throw new ParseError(`Syntax error: extraneous input '${text}' expecting ${what}`, t.pos);
    if (this.mayFollow(tok, t.tok)) throw new ParseError(`Syntax error: missing ${what} at '${text}'`, t.pos);
    this.unexpected(what);
  }
  /**
   * Whether `next` may follow the token `expected`: an expression after ':'; after a closer, an operator
   * or postfix, or what the construct around the one it closes takes after its expression.
   */
  private mayFollow(expected: Tok, next: Tok): boolean {
    if (expected === Tok.Colon) return canStartExpression(next);
    if (expected !== Tok.RParen && expected !== Tok.RBracket && expected !== Tok.RBrace) return false;
    return followsOperand(next) || (this.follows[this.follows.length - 2] ?? []).includes(next);
  }
  /**
   * After an element of a list, an entry of a map or a field of a message, cel-go's grammar reads
   * `','? ']'` (or '}'): ANTLR checks the token against both before matching, so the error names both
   * and nothing is inserted.
   */
  private elementEnd(close: Tok, set: string): never {
    const t = this.peek();
    const next = this.peek(1).tok;
    const extraneous = t.tok !== Tok.EOF && (next === Tok.Comma || next === close);
    throw new ParseError(`Syntax error: ${extraneous ? 'extraneous' : 'mismatched'} input '${tokenText(t, this.src)}' expecting ${set}`, t.pos);
  }
  unexpected(expecting: string): never {
    const t = this.peek();
    const text = tokenText(t, this.src);
    throw new ParseError(`Syntax error: mismatched input '${text}' expecting ${expecting}`, t.pos);
  }
  /** The next expression starts a construct whose grammar state takes more tokens (see expected-tokens.ts). */
  private startsHere(context: StartContext): void {
    this.startContext = context;
    this.startAt = this.i;
  }
  /**
   * What cannot start an expression (or a field) where one must: ANTLR's 'extraneous input' when the
   * token after it could start it, else 'mismatched input', with the set of tokens the state takes.
   */
  private cannotStart(context: StartContext): never {
    const t = this.peek();
    const expected = expectedTokens(context);
    const extraneous = t.tok !== Tok.EOF && expected.has(this.peek(1).tok);
    const text = tokenText(t, this.src);
    throw new ParseError(`Syntax error: ${extraneous ? 'extraneous' : 'mismatched'} input '${text}' expecting ${expected.text}`, t.pos);
  }

  // ---- node factory (also used by macros)
  id(): number {
    return this.nextId++;
  }
  literal(pos: number, value: CelValue): Expr {
    return { kind: 'literal', id: this.id(), pos, value };
  }
  ident(pos: number, name: string): Expr {
    return { kind: 'ident', id: this.id(), pos, name };
  }
  select(pos: number, operand: Expr, field: string, testOnly = false): Expr {
    return { kind: 'select', id: this.id(), pos, operand, field, testOnly };
  }
  call(pos: number, fn: string, args: Expr[], target: Expr | null = null): Expr {
    return { kind: 'call', id: this.id(), pos, fn, target, args };
  }
  list(pos: number, elements: Expr[], optionalIndices: number[] = []): Expr {
    return { kind: 'list', id: this.id(), pos, elements, optionalIndices };
  }
  map(pos: number, entries: MapEntry[] = []): Expr {
    return { kind: 'map', id: this.id(), pos, entries };
  }
  comprehension(
    pos: number,
    iterRange: Expr,
    iterVar: string,
    iterVar2: string | null,
    accuVar: string,
    accuInit: Expr,
    loopCondition: Expr,
    loopStep: Expr,
    result: Expr,
  ): Expr {
    return { kind: 'comprehension', id: this.id(), pos, iterRange, iterVar, iterVar2, accuVar, accuInit, loopCondition, loopStep, result };
  }
  error(pos: number, message: string): never {
    throw new ParseError(message, pos);
  }

  /** The counted height of a node over children of height `h`: the limit is checked here. */
  private counted(h: number): number {
    if (++h > this.maxDepth) this.tooDeep = true;
    return h;
  }

  // ---- grammar
  // expr: conditionalOr ('?' conditionalOr ':' expr)?
  parseExpr(): Expr {
    if (++this.depth > this.maxDepth) throw new ParseError(`expression recursion limit exceeded: ${this.maxDepth}`, -1);
    const cond = this.parseOr();
    const q = this.accept(Tok.Question);
    let result = cond;
    if (q) {
      let h = this.h;
      this.follows.push(FOLLOW_TRUE_BRANCH);
      const ifTrue = this.parseOr();
      if (this.h > h) h = this.h;
      this.expect(Tok.Colon, "':'");
      this.follows.pop();
      const ifFalse = this.parseExpr();
      if (this.h > h) h = this.h;
      result = this.callOrMacro(q.pos, Op.conditional, null, [cond, ifTrue, ifFalse]);
      this.h = this.counted(h);
    }
    this.depth--;
    return result;
  }

  private parseOr(): Expr {
    const first = this.parseAnd();
    if (this.peek().tok !== Tok.Or) return first;
    return this.logicChain(first, Tok.Or, Op.or);
  }

  private parseAnd(): Expr {
    const first = this.parseRelation();
    if (this.peek().tok !== Tok.And) return first;
    return this.logicChain(first, Tok.And, Op.and);
  }

  /**
   * `a && b && …` (or `||`): cel-go's logicManager, a balanced tree of the terms (depth log n, so a chain
   * of thousands of terms is no deeper than a few), ids given in source order.
   */
  private logicChain(first: Expr, tok: Tok, fn: string): Expr {
    let h = this.h;
    const op = this.next();
    const id = this.id();
    const second = tok === Tok.Or ? this.parseAnd() : this.parseRelation();
    if (this.h > h) h = this.h;
    if (this.toks[this.i].tok !== tok) {
      this.h = h;
      return { kind: 'call', id, pos: op.pos, fn, target: null, args: [first, second] };
    }
    const terms = [first, second];
    const ops: Token[] = [op];
    const ids = [id];
    let next: Token | undefined;
    while ((next = this.accept(tok))) {
      ops.push(next);
      ids.push(this.id());
      terms.push(tok === Tok.Or ? this.parseAnd() : this.parseRelation());
      if (this.h > h) h = this.h;
    }
    this.h = h;
    return balancedTree(fn, terms, ops, ids, 0, ops.length - 1);
  }

  private parseRelation(): Expr {
    let e = this.parseAdditive();
    for (;;) {
      const t = this.peek();
      let fn: string | undefined;
      switch (t.tok) {
        case Tok.Less:
          fn = Op.less;
          break;
        case Tok.LessEq:
          fn = Op.lessEquals;
          break;
        case Tok.Greater:
          fn = Op.greater;
          break;
        case Tok.GreaterEq:
          fn = Op.greaterEquals;
          break;
        case Tok.Eq:
          fn = Op.equals;
          break;
        case Tok.NotEq:
          fn = Op.notEquals;
          break;
        case Tok.In:
          fn = Op.in;
          break;
      }
      if (!fn) return e;
      this.i++;
      const h = this.h;
      e = this.call(t.pos, fn, [e, this.parseAdditive()]);
      this.h = this.counted(this.h > h ? this.h : h);
    }
  }

  private parseAdditive(): Expr {
    let e = this.parseMultiplicative();
    for (;;) {
      const t = this.peek();
      const fn = t.tok === Tok.Plus ? Op.add : t.tok === Tok.Minus ? Op.subtract : undefined;
      if (!fn) return e;
      this.i++;
      const h = this.h;
      e = this.call(t.pos, fn, [e, this.parseMultiplicative()]);
      this.h = this.counted(this.h > h ? this.h : h);
    }
  }

  private parseMultiplicative(): Expr {
    let e = this.parseUnary();
    for (;;) {
      const t = this.peek();
      const fn = t.tok === Tok.Star ? Op.multiply : t.tok === Tok.Slash ? Op.divide : t.tok === Tok.Percent ? Op.modulo : undefined;
      if (!fn) return e;
      this.i++;
      const h = this.h;
      e = this.call(t.pos, fn, [e, this.parseUnary()]);
      this.h = this.counted(this.h > h ? this.h : h);
    }
  }

  // unary: member | '!'+ member | '-'+ member  (an even run of the same operator cancels out)
  private parseUnary(): Expr {
    const t = this.peek();
    if (t.tok === Tok.Not) {
      let n = 0;
      while (this.accept(Tok.Not)) n++;
      const operand = this.notOperand();
      return n % 2 === 0 ? operand : this.call(t.pos, Op.not, [operand]);
    }
    if (t.tok === Tok.Minus) {
      // '-' directly before a number literal is part of the literal (so INT64_MIN parses).
      const nt = this.peek(1);
      if (nt.tok === Tok.Int || nt.tok === Tok.Double) {
        const after = this.peek(2);
        if (after.tok !== Tok.Dot && after.tok !== Tok.LBracket) {
          this.i++;
          return this.parseMember(true, t.pos);
        }
      }
      let n = 0;
      while (this.accept(Tok.Minus)) n++;
      if (!canStartMember(this.peek().tok)) this.noViableAlternative(this.toks[this.i - 1], this.peek());
      const operand = this.parseMember();
      return n % 2 === 0 ? operand : this.call(t.pos, Op.negate, [operand]);
    }
    return this.parseMember();
  }

  /**
   * The operand of a '!' run: cel-go's member rule, which takes a signed number ('!-1' is !(-1)) but no
   * other '-'. ANTLR checks the token after the run against the '!' loop ('extraneous input', the
   * token reported as unwanted) and fails to predict a primary from a '-' without a number.
   */
  private notOperand(): Expr {
    const t = this.peek();
    if (t.tok === Tok.Minus) {
      const nt = this.peek(1);
      if (nt.tok !== Tok.Int && nt.tok !== Tok.Double) this.noViableAlternative(t, nt);
      this.i++;
      return this.parseMember(true, t.pos);
    }
    if (!canStartMember(t.tok)) {
      throw new ParseError(`Syntax error: extraneous input '${tokenText(t, this.src)}' expecting ${expectedTokens('expr').text}`, t.pos);
    }
    return this.parseMember();
  }

  private parseMember(negativeLiteral = false, signPos = -1): Expr {
    let e = this.parsePrimary(negativeLiteral, signPos);
    for (;;) {
      const t = this.peek();
      if (t.tok === Tok.Dot) {
        this.i++;
        const h = this.h;
        const opt = this.accept(Tok.Question);
        const idTok = this.peek();
        if (idTok.tok !== Tok.Ident && idTok.tok !== Tok.EscIdent) this.notAField(t, idTok, !!opt);
        this.i++;
        const name = idTok.value as string;
        if (opt) {
          e = this.call(t.pos, Op.optSelect, [e, this.literal(idTok.pos, name)]);
          this.h = this.counted(h);
        } else if (this.peek().tok === Tok.LParen && idTok.tok === Tok.Ident) {
          const open = this.next();
          const args = this.parseExprList(Tok.RParen);
          e = this.callOrMacro(open.pos, name, e, args);
          this.h = this.counted(this.h > h ? this.h : h);
        } else {
          e = this.select(t.pos, e, name);
          this.h = this.counted(h);
        }
        continue;
      }
      if (t.tok === Tok.LBracket) {
        this.i++;
        const h = this.h;
        const opt = this.accept(Tok.Question);
        this.follows.push(FOLLOW_INDEX);
        if (!opt) this.startsHere('index');
        const index = this.parseExpr();
        this.expect(Tok.RBracket, "']'");
        this.follows.pop();
        e = this.call(t.pos, opt ? Op.optIndex : Op.index, [e, index]);
        this.h = this.counted(this.h > h ? this.h : h);
        continue;
      }
      return e;
    }
  }

  private parsePrimary(negativeLiteral: boolean, signPos: number): Expr {
    const t = this.peek();
    switch (t.tok) {
      case Tok.Int:
      case Tok.Double:
      case Tok.Uint:
      case Tok.String:
      case Tok.Bytes:
      case Tok.True:
      case Tok.False:
      case Tok.Null:
        this.i++;
        this.h = 0;
        return this.literalFromToken(t, negativeLiteral, signPos);
      case Tok.LParen: {
        this.i++;
        this.follows.push(FOLLOW_PAREN);
        const e = this.parseExpr();
        this.expect(Tok.RParen, "')'");
        this.follows.pop();
        return e;
      }
      case Tok.LBracket:
        return this.parseListLiteral();
      case Tok.LBrace:
        return this.parseMapLiteral();
      case Tok.Dot:
      case Tok.Ident:
        return this.parseIdentOrCallOrMessage();
    }
    this.cannotStart(this.startAt === this.i ? this.startContext : 'expr');
  }

  /**
   * A select whose name is missing. cel-go's member rule predicts select or member call from the '.'
   * on: what follows '.?' must be a name (escapeIdent); after a bare '.' neither alternative is viable
   * ('no viable alternative at input' with the text from the '.' through the token), but for true,
   * false and null, which cel-go reports as reserved words read where a name was expected.
   */
  private notAField(dot: Token, t: Token, optional: boolean): never {
    if (optional) this.cannotStart('optionalField');
    if (t.tok === Tok.True || t.tok === Tok.False || t.tok === Tok.Null) this.unexpected('IDENTIFIER');
    this.noViableAlternative(dot, t);
  }

  /**
   * ANTLR's prediction failing from token `from` at token `t` (which it reports): the text runs from
   * `from` through `t`, hidden whitespace included. Besides a select without a name: a leading '.'
   * without a name, and a '-' that neither signs a number nor negates an operand (cel-go's literal
   * rule takes a sign, so the unary rule looks past the '-'; parser_test.go: -- fails at input '-').
   */
  private noViableAlternative(from: Token, t: Token): never {
    const end = t.tok === Tok.EOF ? t.pos : t.end;
    throw new ParseError(`Syntax error: no viable alternative at input '${this.src.slice(from.pos, end)}'`, t.pos);
  }

  private literalFromToken(t: Token, negative: boolean, signPos: number): Expr {
    const pos = negative ? signPos : t.pos;
    switch (t.tok) {
      case Tok.Int: {
        let text = t.value as string;
        if (negative) text = `-${text}`;
        let v: bigint;
        try {
          v = text.startsWith('0x') || text.startsWith('-0x') ? parseHex(text) : BigInt(text);
        } catch {
          this.error(pos, 'invalid int literal');
        }
        if (v < INT64_MIN || v > INT64_MAX) this.error(pos, 'invalid int literal');
        return this.literal(pos, v);
      }
      case Tok.Uint: {
        const text = t.value as string;
        let v: bigint;
        try {
          v = text.startsWith('0x') ? parseHex(text) : BigInt(text);
        } catch {
          this.error(pos, 'invalid uint literal');
        }
        if (v > UINT64_MAX) this.error(pos, 'invalid uint literal');
        return this.literal(pos, new CelUint(v));
      }
      case Tok.Double: {
        const v = Number(t.value as string);
        // strconv.ParseFloat's range error; a literal too small for a double reads as 0, as in Go.
        if (!Number.isFinite(v)) this.error(pos, 'invalid double literal');
        return this.literal(pos, negative ? -v : v);
      }
      case Tok.String:
      case Tok.Bytes:
        return this.literal(pos, t.value as string | Uint8Array);
      case Tok.True:
        return this.literal(pos, true);
      case Tok.False:
        return this.literal(pos, false);
      default:
        return this.literal(pos, null);
    }
  }

  private parseIdentOrCallOrMessage(): Expr {
    const start = this.peek();
    const leadingDot = start.tok === Tok.Dot;
    // Message construction: '.'? IDENT ('.' IDENT)* '{'
    {
      let k = leadingDot ? 1 : 0;
      if (this.peek(k).tok === Tok.Ident) {
        k++;
        while (this.peek(k).tok === Tok.Dot && this.peek(k + 1).tok === Tok.Ident) k += 2;
        if (this.peek(k).tok === Tok.LBrace) return this.parseMessage(leadingDot, k);
      }
    }
    if (leadingDot) this.i++;
    const idTok = this.peek();
    if (idTok.tok !== Tok.Ident) {
      if (leadingDot) this.noViableAlternative(start, idTok);
      this.unexpected('IDENTIFIER');
    }
    this.i++;
    const name = idTok.value as string;
    if (RESERVED.has(name)) this.error(idTok.pos, `reserved identifier: ${name}`);
    const full = leadingDot ? `.${name}` : name;
    if (this.peek().tok === Tok.LParen) {
      const open = this.next();
      const args = this.parseExprList(Tok.RParen);
      return this.callOrMacro(open.pos, full, null, args);
    }
    this.h = 0;
    return this.ident(idTok.pos, full);
  }

  private parseMessage(leadingDot: boolean, tokenCount: number): Expr {
    const parts: string[] = [];
    const end = this.i + tokenCount;
    if (leadingDot) this.i++;
    while (this.i < end) {
      const t = this.next();
      if (t.tok === Tok.Ident) parts.push(t.value as string);
    }
    const brace = this.expect(Tok.LBrace, "'{'");
    this.follows.push(FOLLOW_ENTRY);
    const fields: StructField[] = [];
    let h = 0;
    if (!this.acceptEmpty(Tok.RBrace)) {
      for (let first = true; ; first = false) {
        const opt = this.accept(Tok.Question);
        const f = this.peek();
        if (f.tok !== Tok.Ident && f.tok !== Tok.EscIdent) {
          if (opt) this.cannotStart('optionalField');
          if (first) this.cannotStart('firstField');
          this.unexpected('IDENTIFIER');
        }
        this.i++;
        const colon = this.expect(Tok.Colon, "':'");
        const value = this.parseExpr();
        if (this.h > h) h = this.h;
        fields.push({ id: this.id(), pos: colon.pos, name: f.value as string, value, optional: !!opt });
        if (this.accept(Tok.Comma)) {
          if (this.accept(Tok.RBrace)) break;
          // No field can start here: ANTLR reads the comma as the trailing one and matches '}'.
          const n = this.peek().tok;
          if (n !== Tok.Question && n !== Tok.Ident && n !== Tok.EscIdent) this.expect(Tok.RBrace, "'}'");
          continue;
        }
        if (!this.accept(Tok.RBrace)) this.elementEnd(Tok.RBrace, "{'}', ','}");
        break;
      }
    }
    this.follows.pop();
    const typeName = (leadingDot ? '.' : '') + parts.join('.');
    this.h = h;
    return { kind: 'struct', id: this.id(), pos: brace.pos, typeName, fields };
  }

  private parseListLiteral(): Expr {
    const open = this.expect(Tok.LBracket, "'['");
    this.follows.push(FOLLOW_ELEMENT);
    const elements: Expr[] = [];
    const optionalIndices: number[] = [];
    let h = 0;
    if (!this.acceptEmpty(Tok.RBracket)) {
      for (;;) {
        if (this.accept(Tok.Question)) optionalIndices.push(elements.length);
        else if (elements.length === 0) this.startsHere('firstElement');
        elements.push(this.parseExpr());
        if (this.h > h) h = this.h;
        if (this.accept(Tok.Comma)) {
          if (this.accept(Tok.RBracket)) break;
          // No element can start here: ANTLR reads the comma as the trailing one and matches ']'.
          if (!canStartExpression(this.peek().tok) && this.peek().tok !== Tok.Question) this.expect(Tok.RBracket, "']'");
          continue;
        }
        if (!this.accept(Tok.RBracket)) this.elementEnd(Tok.RBracket, "{']', ','}");
        break;
      }
    }
    this.follows.pop();
    this.h = h;
    return this.list(open.pos, elements, optionalIndices);
  }

  private parseMapLiteral(): Expr {
    const open = this.expect(Tok.LBrace, "'{'");
    this.follows.push(FOLLOW_KEY);
    const entries: MapEntry[] = [];
    let h = 0;
    if (!this.acceptEmpty(Tok.RBrace)) {
      for (;;) {
        const opt = this.accept(Tok.Question);
        if (!opt && entries.length === 0) this.startsHere('firstEntry');
        this.follows[this.follows.length - 1] = FOLLOW_KEY;
        const key = this.parseExpr();
        if (this.h > h) h = this.h;
        const colon = this.expect(Tok.Colon, "':'");
        this.follows[this.follows.length - 1] = FOLLOW_ENTRY;
        const value = this.parseExpr();
        if (this.h > h) h = this.h;
        entries.push({ id: this.id(), pos: colon.pos, key, value, optional: !!opt });
        if (this.accept(Tok.Comma)) {
          if (this.accept(Tok.RBrace)) break;
          // No entry can start here: ANTLR reads the comma as the trailing one and matches '}'.
          if (!canStartExpression(this.peek().tok) && this.peek().tok !== Tok.Question) this.expect(Tok.RBrace, "'}'");
          continue;
        }
        if (!this.accept(Tok.RBrace)) this.elementEnd(Tok.RBrace, "{'}', ','}");
        break;
      }
    }
    this.follows.pop();
    this.h = h;
    return this.map(open.pos, entries);
  }

  /** The arguments of a call; `h` is left at the largest of their heights (0 for none). */
  private parseExprList(close: Tok): Expr[] {
    const out: Expr[] = [];
    if (this.accept(close)) {
      this.h = 0;
      return out;
    }
    this.follows.push(close === Tok.RParen ? FOLLOW_ARGUMENT : FOLLOW_ELEMENT);
    let h = 0;
    if (close === Tok.RParen) this.startsHere('firstArgument');
    for (;;) {
      out.push(this.parseExpr());
      if (this.h > h) h = this.h;
      if (this.accept(Tok.Comma)) continue;
      this.expect(close, close === Tok.RParen ? "')'" : "']'");
      this.follows.pop();
      this.h = h;
      return out;
    }
  }

  private callOrMacro(pos: number, fn: string, target: Expr | null, args: Expr[]): Expr {
    const expanded = expandMacro(this, pos, fn, target, args, this.macros);
    if (expanded) return expanded;
    return this.call(pos, fn, args, target);
  }
}

/** cel-go's logicManager.balancedTree: terms[lo..hi+1] joined by ops[lo..hi], the middle operator at the root. */
function balancedTree(fn: string, terms: Expr[], ops: Token[], ids: number[], lo: number, hi: number): Expr {
  const mid = (lo + hi + 1) >> 1;
  const left = mid === lo ? terms[mid] : balancedTree(fn, terms, ops, ids, lo, mid - 1);
  const right = mid === hi ? terms[mid + 1] : balancedTree(fn, terms, ops, ids, mid + 1, hi);
  return { kind: 'call', id: ids[mid], pos: ops[mid].pos, fn, target: null, args: [left, right] };
}

function parseHex(text: string): bigint {
  const neg = text.startsWith('-');
  const v = BigInt(neg ? text.slice(1) : text);
  return neg ? -v : v;
}
