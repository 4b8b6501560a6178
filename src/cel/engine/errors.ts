/**
 * Error kinds of the CEL engine. Evaluation errors are thrown as plain objects (no stack capture, which
 * matters because `&&`, `||` and comprehensions absorb errors on hot paths) and become CEL error values
 * at the places the language absorbs them.
 */

/** A CEL runtime error (cel-go `types.Err`). */
export class CelEvalError {
  constructor(readonly message: string) {}
  toString(): string {
    return this.message;
  }
}

/** The per-call cost limit was exceeded; never absorbed by logical operators. */
export class CostLimitError {
  readonly message = 'operation cancelled: actual cost limit exceeded';
}

/**
 * Program creation failed (cel-go's `env.Program`): a constant that OptOptimize evaluates while
 * planning, such as `int('abc')`, gave an error. A compile error at `pos`, not an evaluation error.
 */
export class ProgramInstantiationError {
  constructor(
    readonly message: string,
    readonly pos: number,
  ) {}
}

/**
 * A library function returned a Promise (an authorizer calling the cluster). Evaluation stops; the
 * caller awaits the promise, memoizes the result for this call and runs the expression again
 * (see AsyncResults). Never absorbed by logical operators.
 */
export class AsyncPending {
  constructor(
    readonly promise: PromiseLike<unknown>,
    readonly overloadId: string,
    readonly args: readonly unknown[],
  ) {}
}

/**
 * An evaluation nested inside other evaluations (a variable read by a variable read by …) stopped
 * because the nesting went too deep for the stack: the outermost evaluation computes `position`
 * first, at the top, and runs the stopped ones again. Never absorbed by logical operators; a stopped
 * evaluation's cost is not charged (its complete run's is).
 */
export class EvaluationDeferred {
  constructor(readonly position: number) {}
}

/**
 * cel-go's plain `no such overload` (types.NoSuchOverloadErr): what a value's own method answers for an
 * operand it does not take. A call no overload takes is worded by overload-errors.ts.
 */
export function noSuchOverload(): CelEvalError {
  return new CelEvalError('no such overload');
}

/** A compile-time issue, positioned in the source. */
export interface CelIssue {
  message: string;
  /** Offset (in UTF-16 units) into the expression, or -1 when unknown. */
  offset: number;
}

/** cel-go's Errors keep the first 100 issues reported (common/errors.go maxErrorsToReport). */
const MAX_ISSUES_TO_REPORT = 100;

/**
 * Formats issues as cel-go's Errors.ToDisplayString does: the first 100 reported, sorted by position
 * (stable; an issue without one first), each `ERROR: <input>:1:5: msg` plus the source line and a
 * caret, then `N more errors were truncated`. Each carries its whole line, so the cap also bounds the
 * message: 10,000 undeclared names in one line of 60 KB would otherwise print 1.2 GB.
 */
export function formatIssues(source: string, issues: readonly CelIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES_TO_REPORT).sort((a, b) => a.offset - b.offset);
  const lines = shown.map((i) => formatIssue(source, i));
  if (issues.length > MAX_ISSUES_TO_REPORT) lines.push(`${issues.length - MAX_ISSUES_TO_REPORT} more errors were truncated`);
  return lines.join('\n');
}

/** cel-go prints no source line longer than this many UTF-8 bytes (common/error.go maxSnippetLength). */
const MAX_SNIPPET_BYTES = 16384;

/**
 * One issue as cel-go's Error.ToDisplayString prints it: the line and a marker under the column, a
 * full-width dot for each character before it that is not ASCII and a full-width caret when the
 * character at the column is not ASCII; a line over MAX_SNIPPET_BYTES is left out.
 */
function formatIssue(source: string, issue: CelIssue): string {
  if (issue.offset < 0) return `ERROR: <input>:-1:0: ${issue.message}`;
  const { line, column, lineText } = locate(source, issue.offset);
  const header = `ERROR: <input>:${line}:${column + 1}: ${issue.message}`;
  if (utf8Length(lineText) > MAX_SNIPPET_BYTES) return header;
  const snippet = lineText.replace(/\t/g, ' ');
  let marker = '';
  let col = 0;
  let atColumn: string | undefined;
  for (const ch of snippet) {
    if (col >= column) {
      atColumn = ch;
      break;
    }
    marker += isWide(ch) ? '\uff0e' : '.';
    col++;
  }
  return `${header}\n | ${snippet}\n | ${marker}${atColumn !== undefined && isWide(atColumn) ? '\uff3e' : '^'}`;
}

/** A character Go encodes in more than one UTF-8 byte. */
function isWide(ch: string): boolean {
  return ch.length > 1 || ch.charCodeAt(0) > 0x7f;
}

/** The UTF-8 length Go sees (a lone surrogate, which Go's decoders turn into U+FFFD, counts 3). */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x800 && !(c >= 0xd800 && c <= 0xdfff)) n += 2;
    else if (c >= 0x80) n += 1;
  }
  return n;
}

/** Line (1-based), column (0-based, in code points) and text of the line holding `offset`. */
function locate(source: string, offset: number): { line: number; column: number; lineText: string } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < source.length; i++) {
    if (source[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  let end = source.indexOf('\n', lineStart);
  if (end < 0) end = source.length;
  const before = source.slice(lineStart, offset);
  return { line, column: [...before].length, lineText: source.slice(lineStart, end) };
}
