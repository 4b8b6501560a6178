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

function formatIssue(source: string, issue: CelIssue): string {
  if (issue.offset < 0) return `ERROR: <input>:-1:0: ${issue.message}`;
  const { line, column, lineText } = locate(source, issue.offset);
  const snippet = lineText.replace(/\t/g, ' ');
  let marker = '';
  let col = 0;
  for (const ch of snippet) {
    if (col >= column) break;
    marker += ch.length > 1 || ch.charCodeAt(0) > 0x7f ? '\uff0e' : '.';
    col++;
  }
  return `ERROR: <input>:${line}:${column + 1}: ${issue.message}\n | ${snippet}\n | ${marker}^`;
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
