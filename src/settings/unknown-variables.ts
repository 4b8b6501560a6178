/**
 * Environment variables that look like settings (a prefix such as `AMENDER_`) but that no setting reads.
 * A misspelt name (`AMENDER_REFERSH_SECONDS`) would otherwise leave its setting at the default without a
 * word, where the config file refuses a key it does not know. They are reported (with the nearest known
 * name) rather than refused: a variable may be meant for another platform (Lambda's own settings) or for a
 * newer release, and a server that will not start over it would fail closed.
 */

/** A known name: as written, or a pattern with one `<NAME>` (a cluster's name, upper-cased). */
type Known = { exact: string } | { head: string; tail: string };

const NAME = '<NAME>';
/** What `<NAME>` stands for: a cluster name upper-cased with `-` as `_` (clusters/config.ts). */
const NAME_CHARS = /^[A-Z0-9_]+$/;

function parse(name: string): Known {
  const at = name.indexOf(NAME);
  return at === -1 ? { exact: name } : { head: name.slice(0, at), tail: name.slice(at + NAME.length) };
}

function matches(variable: string, known: Known): boolean {
  if ('exact' in known) return variable === known.exact;
  const { head, tail } = known;
  if (variable.length <= head.length + tail.length || !variable.startsWith(head) || !variable.endsWith(tail)) return false;
  return NAME_CHARS.test(variable.slice(head.length, variable.length - tail.length));
}

/** Levenshtein distance, stopping early once it passes `max` (then any value above `max`). */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      least = Math.min(least, row[j]);
    }
    if (least > max) return max + 1;
    previous = row;
  }
  return previous[b.length];
}

/**
 * The known name nearest `written` (a pattern with the variable's own cluster name in it), if near enough.
 * Compared upper-cased: `amender_workers` is a slip of case, which the environment does not forgive.
 */
function nearest(written: string, known: readonly Known[]): string | undefined {
  const variable = written.toUpperCase();
  // A slip of a few characters, not a different word: at most 3 edits, and at most a quarter of the name.
  const max = Math.min(3, Math.floor(variable.length / 4));
  let best: { name: string; d: number } | undefined;
  const consider = (name: string, d: number) => {
    if (d <= max && (best === undefined || d < best.d)) best = { name, d };
  };
  for (const k of known) {
    if ('exact' in k) {
      consider(k.exact, distance(variable, k.exact, max));
      continue;
    }
    // The pattern's head as written (AMENDER_CLUSTER_), then every way of reading a cluster name and a tail.
    if (!variable.startsWith(k.head)) continue;
    const rest = variable.slice(k.head.length);
    for (let cut = 1; cut < rest.length; cut++) {
      const name = rest.slice(0, cut);
      if (!NAME_CHARS.test(name)) break;
      consider(`${k.head}${name}${k.tail}`, distance(rest.slice(cut), k.tail, max));
    }
  }
  return best?.name;
}

/**
 * One warning per variable of `env` that starts with `prefix` (in any case), is not empty (an empty
 * variable counts as unset) and is none of `known` (names, or patterns with `<NAME>`), in name order.
 */
export function unknownVariables(env: Readonly<Record<string, string | undefined>>, known: readonly string[], prefix: string): string[] {
  const parsed = known.map(parse);
  const upperPrefix = prefix.toUpperCase();
  return Object.keys(env)
    .filter((variable) => variable.toUpperCase().startsWith(upperPrefix) && env[variable] !== undefined && env[variable] !== '' && !parsed.some((k) => matches(variable, k)))
    .sort()
    .map((variable) => {
      const guess = nearest(variable, parsed);
      return `${variable} is set but is no setting of this server: ignored${guess ? ` (did you mean ${guess}?)` : ''}`;
    });
}
