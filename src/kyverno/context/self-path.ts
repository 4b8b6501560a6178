/**
 * What `{{@}}` stands for: the one writer of its JMESPath, for substitution at run time
 * (./variables.ts) and for policy validation (../validation/invalid-variables.ts). Kyverno has one
 * definition (substituteVariablesIfAny in pkg/engine/variables/vars.go, with pkg/utils/jsonpointer):
 * the string's traversal path (pkg/engine/jsonutils: keys joined by `/`, a `/` in a key written `\/`,
 * a map key at its map's path) is read back by jsonpointer.ParsePath, everything up to and including
 * the FIRST `foreach` segment and then two more segments are dropped, and the rest is written as
 * JMESPath under `target` when the context resolves `target`, else under `request.object`.
 *
 * What the path starts from is the caller's: a whole rule (`/mutate/patchStrategicMerge/…`,
 * `/context/…`, `/preconditions/…`; policy validation also sees `/mutate/foreach/N/…`), a foreach
 * entry's `{patchStrategicMerge, patchesJson6902}` (`/patchStrategicMerge/…`: so inside a foreach the
 * patch key and the overlay's first key are what is dropped), or one condition's key or value (its own
 * path). How Kyverno writes the JMESPath (bare identifiers, `[n]` for what reads as an unsigned
 * integer, quoted otherwise) decides whether it parses, so whether a policy is accepted.
 */

/** Kyverno's prefixes: `target` (mutate existing) when the context resolves it, else the request's object. */
export function selfPathPrefix(targetResolves: boolean): string {
  return targetResolves ? 'target' : 'request.object';
}

/** The traversal's path string: `/a/b`, a `/` in a key written `\/`. */
export function traversalPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) out += `/${String(s).replaceAll('/', '\\/')}`;
  return out;
}

/** `{{@}}`'s JMESPath for a string at `path` (a traversal path), under `prefix` (selfPathPrefix). */
export function selfPathExpression(path: string, prefix: string): string {
  let pointer = parsePath(path);
  pointer = pointer.slice(pointer.indexOf('foreach') + 1);
  pointer = 2 > pointer.length - 1 ? [] : pointer.slice(2);
  return jmesPathOf([...prefix.split('.'), ...pointer]);
}

/**
 * jsonpointer.ParsePath: `/` separates segments (empty ones are dropped), a backslash takes the next
 * character literally, and double quotes group characters (a `/` inside does not separate) and are
 * themselves dropped. Go decodes the path rune by rune and stops at U+FFFD, the rune it also reads at
 * the end of the string: an unescaped U+FFFD ends the path there, the segment before it kept. A lone
 * surrogate is U+FFFD in Go (encoding/json decodes one so), so it counts as one.
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
    const r = isReplacement(c) ? REPLACEMENT : c;
    if (escaped) {
      current += r;
      escaped = false;
    } else if (r === '\\') escaped = true;
    else if (r === '"') quoted = !quoted;
    else if (r === '/' && !quoted) flush();
    else if (r === REPLACEMENT) break;
    else current += r;
  }
  // A trailing backslash escapes the end of the string, which Go reads as U+FFFD.
  if (escaped) current += REPLACEMENT;
  flush();
  return out;
}

const REPLACEMENT = '\uFFFD';

/** U+FFFD itself, or a lone surrogate (a code point of its own when iterating a string). */
function isReplacement(c: string): boolean {
  const code = c.charCodeAt(0);
  return c === REPLACEMENT || (c.length === 1 && code >= 0xd800 && code <= 0xdfff);
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
