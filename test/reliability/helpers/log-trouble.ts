/** Log lines that report an error or carry a stack trace (in a JSON line, `\n    at ...`, the newline escaped). */
export function troubleIn(lines: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return lines.filter((l) => l.level === 'error' || /\\n\s+at /.test(JSON.stringify(l)));
}
