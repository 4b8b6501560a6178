/**
 * The token sets cel-go's syntax errors name when an expression (or a message field) cannot start at
 * the token read: ANTLR's 'mismatched input 'x' expecting {...}', or 'extraneous input' when the token
 * after it could start one (ANTLR then drops the token and goes on). ANTLR prints the tokens the
 * grammar state takes (cel-go parser/gen/CEL.g4), in token-type order (CEL.tokens), literals quoted.
 */
import { Tok } from './lexer.js';

/** The tokens that can appear in these sets, in CEL.tokens order, as ANTLR names them. */
const DISPLAY: readonly [Tok, string][] = [
  [Tok.LBracket, "'['"],
  [Tok.RBracket, "']'"],
  [Tok.LBrace, "'{'"],
  [Tok.RBrace, "'}'"],
  [Tok.LParen, "'('"],
  [Tok.RParen, "')'"],
  [Tok.Dot, "'.'"],
  [Tok.Comma, "','"],
  [Tok.Minus, "'-'"],
  [Tok.Not, "'!'"],
  [Tok.Question, "'?'"],
  [Tok.True, "'true'"],
  [Tok.False, "'false'"],
  [Tok.Null, "'null'"],
  [Tok.Double, 'NUM_FLOAT'],
  [Tok.Int, 'NUM_INT'],
  [Tok.Uint, 'NUM_UINT'],
  [Tok.String, 'STRING'],
  [Tok.Bytes, 'BYTES'],
  [Tok.Ident, 'IDENTIFIER'],
  [Tok.EscIdent, 'ESC_IDENTIFIER'],
];

/** What may start an `expr` (its unary and primary alternatives). */
const EXPR_START = [
  Tok.LBracket, Tok.LBrace, Tok.LParen, Tok.Dot, Tok.Minus, Tok.Not, Tok.True, Tok.False, Tok.Null,
  Tok.Double, Tok.Int, Tok.Uint, Tok.String, Tok.Bytes, Tok.Ident,
];

/**
 * Where the expression starts: anywhere (`expr`), or at the first element of a list (`'[' listInit?
 * ','? ']'`, with its optional `?`), the first entry of a map, the first argument of a call
 * (`exprList?` before ')'), an index (`'[' '?'? expr`), or the first field of a message literal.
 */
export type StartContext = 'expr' | 'firstElement' | 'firstEntry' | 'firstArgument' | 'index' | 'firstField' | 'optionalField';

export interface ExpectedTokens {
  readonly has: (tok: Tok) => boolean;
  readonly text: string;
}

function expected(tokens: readonly Tok[]): ExpectedTokens {
  const set = new Set(tokens);
  const names = DISPLAY.filter(([t]) => set.has(t)).map(([, n]) => n);
  return { has: (tok) => set.has(tok), text: names.length === 1 ? names[0] : `{${names.join(', ')}}` };
}

const SETS: Record<StartContext, ExpectedTokens> = {
  expr: expected(EXPR_START),
  firstElement: expected([...EXPR_START, Tok.RBracket, Tok.Comma, Tok.Question]),
  firstEntry: expected([...EXPR_START, Tok.RBrace, Tok.Comma, Tok.Question]),
  firstArgument: expected([...EXPR_START, Tok.RParen]),
  index: expected([...EXPR_START, Tok.Question]),
  firstField: expected([Tok.RBrace, Tok.Comma, Tok.Question, Tok.Ident, Tok.EscIdent]),
  optionalField: expected([Tok.Ident, Tok.EscIdent]),
};

export function expectedTokens(context: StartContext): ExpectedTokens {
  return SETS[context];
}

export function canStartExpression(tok: Tok): boolean {
  return SETS.expr.has(tok);
}

/** What may start the operand of a unary operator (cel-go's member rule): not another '-' or '!'. */
export function canStartMember(tok: Tok): boolean {
  return tok !== Tok.Minus && tok !== Tok.Not && SETS.expr.has(tok);
}

/** What may follow any complete operand: an operator, a select, an index, the '?' of a conditional. */
const AFTER_OPERAND = new Set<Tok>([
  Tok.Plus, Tok.Minus, Tok.Star, Tok.Slash, Tok.Percent, Tok.Less, Tok.LessEq, Tok.Greater, Tok.GreaterEq,
  Tok.Eq, Tok.NotEq, Tok.And, Tok.Or, Tok.In, Tok.Question, Tok.Dot, Tok.LBracket,
]);

export function followsOperand(tok: Tok): boolean {
  return AFTER_OPERAND.has(tok);
}
