/**
 * The command-line grammar every `amender` command shares: `--name value`, `--name=value`, boolean
 * `--flag` (or `--flag=true|false`, as pflag), and list options that take every following argument up to the next `--option`
 * (`--policies a.yaml dir/ b.yaml`). A list option may also be repeated. A short option (`-s`, `-r`:
 * Kyverno's spellings) a command does not map to its own is refused, never taken as a list value or a
 * path: `--resource pod.yaml -s a=b` must not read a file named `-s`.
 */

/**
 * `string`: one value, refused when given twice. `last`: one value, the last given counts, as pflag's
 * String flags keep it (for the flags of `kyverno apply` and `kyverno test`, whose command lines, often
 * built by scripts that append a flag, carry over). `list`: many values.
 */
export type OptionKind = 'string' | 'last' | 'boolean' | 'list';
export type OptionSpec = Readonly<Record<string, OptionKind>>;

export interface ParsedArgs {
  options: Map<string, string | boolean | string[]>;
  positionals: string[];
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** `-x`, `-abc`: a short option. `-` alone is standard input; `-1` is no option. */
const SHORT_OPTION = /^-[A-Za-z]/;

/**
 * `--flag=VALUE` of a boolean option, read as pflag reads it (strconv.ParseBool), so a kyverno command line
 * with `--remove-color=true` or `--detailed-results=false` means what it meant there.
 */
export function goBool(name: string, value: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  throw new UsageError(`option --${name} takes no value, or =true or =false; got ${JSON.stringify(value)}`);
}

export function parseArgs(argv: readonly string[], spec: OptionSpec): ParsedArgs {
  const options = new Map<string, string | boolean | string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (SHORT_OPTION.test(arg)) throw new UsageError(`unknown option ${arg}`);
    if (!arg.startsWith('--') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const kind = Object.prototype.hasOwnProperty.call(spec, name) ? spec[name] : undefined;
    if (!kind) throw new UsageError(`unknown option --${name}`);
    if (kind === 'boolean') {
      options.set(name, inline === undefined ? true : goBool(name, inline));
    } else if (kind === 'string' || kind === 'last') {
      if (kind === 'string' && options.has(name)) throw new UsageError(`option --${name} given twice`);
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`option --${name} needs a value`);
      options.set(name, value);
    } else {
      const values = (options.get(name) as string[] | undefined) ?? [];
      if (inline !== undefined) values.push(inline);
      else while (i + 1 < argv.length && !argv[i + 1].startsWith('--') && !SHORT_OPTION.test(argv[i + 1])) values.push(argv[++i]);
      if (values.length === 0) throw new UsageError(`option --${name} needs at least one value`);
      options.set(name, values);
    }
  }
  return { options, positionals };
}

/** Typed accessors over a ParsedArgs. */
export function stringOption(args: ParsedArgs, name: string): string | undefined {
  return args.options.get(name) as string | undefined;
}

export function listOption(args: ParsedArgs, name: string): string[] {
  return (args.options.get(name) as string[] | undefined) ?? [];
}

export function flag(args: ParsedArgs, name: string): boolean {
  return args.options.get(name) === true;
}
