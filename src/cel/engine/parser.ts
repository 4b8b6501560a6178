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
  try {
    tokens = tokenize(source);
  } catch (e) {
    if (e instanceof LexError) return { issues: [{ message: `Syntax error: ${e.message}`, offset: e.pos }], maxId: 0 };
    throw e;
  }
  const p = new Parser(source, tokens, options.maxRecursionDepth ?? 250, options.macros);
  try {
    const expr = p.parseExpr();
    if (p.peek().tok !== Tok.EOF) p.unexpected('<EOF>');
    if (p.issues.length) return { issues: p.issues, maxId: p.nextId - 1 };
    return { expr, issues: [], maxId: p.nextId - 1 };
  } catch (e) {
    if (e instanceof ParseError) return { issues: [...p.issues, { message: e.message, offset: e.pos }], maxId: p.nextId - 1 };
    if (e instanceof LexError) return { issues: [{ message: `Syntax error: ${e.message}`, offset: e.pos }], maxId: 0 };
    throw e;
  }
}

class Parser implements MacroFactory {
  private i = 0;
  private depth = 0;
  /**
   * Constructs opened and not yet closed ('(', '[', '{', and a '?' awaiting its ':'): the end of input
   * may follow a missing closer only when it closes the last of them (see expect).
   */
  private pending = 0;
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
  private expect(tok: Tok, what: string): Token {
    const t = this.toks[this.i];
    if (t.tok !== tok) {
      // ANTLR's single-token insertion: when the end of input may follow the missing token ('f(x' lacks
      // its ')'), the error names the missing token.
      const closer = tok === Tok.RParen || tok === Tok.RBracket || tok === Tok.RBrace;
      if (t.tok === Tok.EOF && closer && this.pending === 1) throw new ParseError(`Syntax error: missing ${what} at '<EOF>'`, t.pos);
      this.unexpected(what);
    }
    this.i++;
    return t;
  }
  unexpected(expecting: string): never {
    const t = this.peek();
    const text = tokenText(t, this.src);
    throw new ParseError(`Syntax error: mismatched input '${text}' expecting ${expecting}`, t.pos);
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

  private enter(pos: number): void {
    if (++this.depth > this.maxDepth) throw new ParseError('max recursion depth exceeded', pos);
  }

  // ---- grammar
  // expr: conditionalOr ('?' conditionalOr ':' expr)?
  parseExpr(): Expr {
    this.enter(this.peek().pos);
    const cond = this.parseOr();
    const q = this.accept(Tok.Question);
    let result = cond;
    if (q) {
      this.pending++;
      const ifTrue = this.parseOr();
      this.expect(Tok.Colon, "':'");
      this.pending--;
      const ifFalse = this.parseExpr();
      result = this.callOrMacro(q.pos, Op.conditional, null, [cond, ifTrue, ifFalse]);
    }
    this.depth--;
    return result;
  }

  private parseOr(): Expr {
    let e = this.parseAnd();
    let op: Token | undefined;
    while ((op = this.accept(Tok.Or))) e = this.call(op.pos, Op.or, [e, this.parseAnd()]);
    return e;
  }

  private parseAnd(): Expr {
    let e = this.parseRelation();
    let op: Token | undefined;
    while ((op = this.accept(Tok.And))) e = this.call(op.pos, Op.and, [e, this.parseRelation()]);
    return e;
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
      this.enter(t.pos);
      e = this.call(t.pos, fn, [e, this.parseAdditive()]);
      this.depth--;
    }
  }

  private parseAdditive(): Expr {
    let e = this.parseMultiplicative();
    for (;;) {
      const t = this.peek();
      const fn = t.tok === Tok.Plus ? Op.add : t.tok === Tok.Minus ? Op.subtract : undefined;
      if (!fn) return e;
      this.i++;
      this.enter(t.pos);
      e = this.call(t.pos, fn, [e, this.parseMultiplicative()]);
      this.depth--;
    }
  }

  private parseMultiplicative(): Expr {
    let e = this.parseUnary();
    for (;;) {
      const t = this.peek();
      const fn = t.tok === Tok.Star ? Op.multiply : t.tok === Tok.Slash ? Op.divide : t.tok === Tok.Percent ? Op.modulo : undefined;
      if (!fn) return e;
      this.i++;
      this.enter(t.pos);
      e = this.call(t.pos, fn, [e, this.parseUnary()]);
      this.depth--;
    }
  }

  // unary: member | '!'+ member | '-'+ member  (an even run of the same operator cancels out)
  private parseUnary(): Expr {
    const t = this.peek();
    if (t.tok === Tok.Not) {
      let n = 0;
      while (this.accept(Tok.Not)) n++;
      const operand = this.parseMember();
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
      const operand = this.parseMember();
      return n % 2 === 0 ? operand : this.call(t.pos, Op.negate, [operand]);
    }
    return this.parseMember();
  }

  private parseMember(negativeLiteral = false, signPos = -1): Expr {
    let e = this.parsePrimary(negativeLiteral, signPos);
    for (;;) {
      const t = this.peek();
      if (t.tok === Tok.Dot) {
        this.i++;
        this.enter(t.pos);
        const opt = this.accept(Tok.Question);
        const idTok = this.peek();
        if (idTok.tok !== Tok.Ident && idTok.tok !== Tok.EscIdent) this.unexpected('IDENTIFIER');
        this.i++;
        const name = idTok.value as string;
        if (opt) {
          e = this.call(t.pos, Op.optSelect, [e, this.literal(idTok.pos, name)]);
        } else if (this.peek().tok === Tok.LParen && idTok.tok === Tok.Ident) {
          const open = this.next();
          const args = this.parseExprList(Tok.RParen);
          e = this.callOrMacro(open.pos, name, e, args);
        } else {
          e = this.select(t.pos, e, name);
        }
        this.depth--;
        continue;
      }
      if (t.tok === Tok.LBracket) {
        this.i++;
        this.enter(t.pos);
        const opt = this.accept(Tok.Question);
        this.pending++;
        const index = this.parseExpr();
        this.expect(Tok.RBracket, "']'");
        this.pending--;
        e = this.call(t.pos, opt ? Op.optIndex : Op.index, [e, index]);
        this.depth--;
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
        return this.literalFromToken(t, negativeLiteral, signPos);
      case Tok.LParen: {
        this.i++;
        this.pending++;
        const e = this.parseExpr();
        this.expect(Tok.RParen, "')'");
        this.pending--;
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
    this.unexpected('an expression');
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
    if (idTok.tok !== Tok.Ident) this.unexpected('IDENTIFIER');
    this.i++;
    const name = idTok.value as string;
    if (RESERVED.has(name)) this.error(idTok.pos, `reserved identifier: ${name}`);
    const full = leadingDot ? `.${name}` : name;
    if (this.peek().tok === Tok.LParen) {
      const open = this.next();
      const args = this.parseExprList(Tok.RParen);
      return this.callOrMacro(open.pos, full, null, args);
    }
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
    this.pending++;
    const fields: StructField[] = [];
    if (!this.accept(Tok.RBrace)) {
      for (;;) {
        this.enter(this.peek().pos);
        const opt = this.accept(Tok.Question);
        const f = this.peek();
        if (f.tok !== Tok.Ident && f.tok !== Tok.EscIdent) this.unexpected('IDENTIFIER');
        this.i++;
        const colon = this.expect(Tok.Colon, "':'");
        const value = this.parseExpr();
        fields.push({ id: this.id(), pos: colon.pos, name: f.value as string, value, optional: !!opt });
        this.depth--;
        if (this.accept(Tok.Comma)) {
          if (this.accept(Tok.RBrace)) break;
          continue;
        }
        this.expect(Tok.RBrace, "'}'");
        break;
      }
    }
    this.pending--;
    const typeName = (leadingDot ? '.' : '') + parts.join('.');
    return { kind: 'struct', id: this.id(), pos: brace.pos, typeName, fields };
  }

  private parseListLiteral(): Expr {
    const open = this.expect(Tok.LBracket, "'['");
    this.enter(open.pos);
    this.pending++;
    const elements: Expr[] = [];
    const optionalIndices: number[] = [];
    if (!this.accept(Tok.RBracket)) {
      for (;;) {
        if (this.accept(Tok.Question)) optionalIndices.push(elements.length);
        elements.push(this.parseExpr());
        if (this.accept(Tok.Comma)) {
          if (this.accept(Tok.RBracket)) break;
          continue;
        }
        this.expect(Tok.RBracket, "']'");
        break;
      }
    }
    this.pending--;
    this.depth--;
    return this.list(open.pos, elements, optionalIndices);
  }

  private parseMapLiteral(): Expr {
    const open = this.expect(Tok.LBrace, "'{'");
    this.enter(open.pos);
    this.pending++;
    const entries: MapEntry[] = [];
    if (!this.accept(Tok.RBrace)) {
      for (;;) {
        const opt = this.accept(Tok.Question);
        const key = this.parseExpr();
        const colon = this.expect(Tok.Colon, "':'");
        const value = this.parseExpr();
        entries.push({ id: this.id(), pos: colon.pos, key, value, optional: !!opt });
        if (this.accept(Tok.Comma)) {
          if (this.accept(Tok.RBrace)) break;
          continue;
        }
        this.expect(Tok.RBrace, "'}'");
        break;
      }
    }
    this.pending--;
    this.depth--;
    return this.map(open.pos, entries);
  }

  private parseExprList(close: Tok): Expr[] {
    const out: Expr[] = [];
    if (this.accept(close)) return out;
    this.pending++;
    for (;;) {
      out.push(this.parseExpr());
      if (this.accept(Tok.Comma)) continue;
      this.expect(close, close === Tok.RParen ? "')'" : "']'");
      this.pending--;
      return out;
    }
  }

  private callOrMacro(pos: number, fn: string, target: Expr | null, args: Expr[]): Expr {
    const expanded = expandMacro(this, pos, fn, target, args, this.macros);
    if (expanded) return expanded;
    return this.call(pos, fn, args, target);
  }
}

function parseHex(text: string): bigint {
  const neg = text.startsWith('-');
  const v = BigInt(neg ? text.slice(1) : text);
  return neg ? -v : v;
}
