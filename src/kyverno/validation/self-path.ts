/**
 * What `{{@}}` stands for when Kyverno substitutes a rule (substituteVariablesIfAny in
 * pkg/engine/variables/vars.go, with pkg/utils/jsonpointer): the traversal's path of the string, read
 * back by jsonpointer.ParsePath, everything up to the first `foreach` and then two more segments
 * dropped, the rest written as JMESPath under `prefix`. Policy validation must parse that JMESPath, so
 * the way Kyverno writes it (bare identifiers, `[n]` for indices, quoted otherwise) decides whether a
 * policy is accepted.
 */

/** The traversal's path string: `/a/b`, a `/` in a key written `\/`. */
export function traversalPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) out += `/${String(s).replaceAll('/', '\\/')}`;
  return out;
}

/** `{{@}}`'s JMESPath for a string at `path` (a traversal path), under `prefix` (`request.object` or `target`). */
export function selfPathExpression(path: string, prefix: string): string {
  let pointer = parsePath(path);
  pointer = pointer.slice(pointer.indexOf('foreach') + 1);
  pointer = 2 > pointer.length - 1 ? [] : pointer.slice(2);
  return jmesPathOf([...prefix.split('.'), ...pointer]);
}

/**
 * jsonpointer.ParsePath: `/` separates segments (empty ones are dropped), a backslash takes the next
 * character literally, and double quotes group characters (a `/` inside does not separate) and are
 * themselves dropped.
 */
export function parsePath(path: string): string[] {
  const out: string[] = [];
  let current = '';
  let escaped = false;
  let quoted = false;
  const flush = () => {
    if (current !== '') out.push(current);
    current = '';
  };
  for (const c of path) {
    if (escaped) {
      current += c;
      escaped = false;
    } else if (c === '\\') escaped = true;
    else if (c === '"') quoted = !quoted;
    else if (c === '/' && !quoted) flush();
    else current += c;
  }
  // A trailing backslash escapes the end of the string, which Go reads as U+FFFD.
  if (escaped) current += '\uFFFD';
  flush();
  return out;
}

const MAX_UINT64 = 18446744073709551615n;

/** Pointer.JMESPath. */
export function jmesPathOf(pointer: readonly string[]): string {
  let out = '';
  for (const component of pointer) {
    if (/^[0-9]+$/.test(component) && BigInt(component) <= MAX_UINT64) {
      out += `[${component}]`;
      continue;
    }
    if (out !== '') out += '.';
    // The first character may be `(` (Kyverno's own range table), but every character must also be in
    // the second table, which has `)` and not `(`: so `(name)` is quoted and `name)` is not.
    if (/^[(A-Z_a-z]/.test(component) && /^[)0-9A-Z_a-z]*$/.test(component)) {
      out += component;
      continue;
    }
    out += `"${quoteComponent(component)}"`;
  }
  return out;
}

const ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Everything from U+0020 on is written as it is, except `"` and `\`; other control characters as `\u00XX`. */
function quoteComponent(component: string): string {
  let out = '';
  for (const c of component) {
    const code = c.codePointAt(0)!;
    if (code >= 0x20 && c !== '"' && c !== '\\') out += c;
    else out += ESCAPES[c] ?? `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return out;
}
