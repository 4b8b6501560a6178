/**
 * Kyverno's wildcard patterns in `kinds` entries: `*` stands for any run of characters (none included),
 * `?` for exactly one; everything else is literal.
 */
export function hasWildcard(text: string): boolean {
  return text.includes('*') || text.includes('?');
}

export function wildcardMatch(pattern: string, text: string): boolean {
  if (!hasWildcard(pattern)) return pattern === text;
  const source = Array.from(pattern, (c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, 'su').test(text);
}
