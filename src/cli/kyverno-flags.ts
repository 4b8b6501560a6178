/**
 * `kyverno apply`'s and `kyverno test`'s command lines as `amender apply` and `amender test` read them
 * (commands/apply/command.go, commands/test/command.go flags): the flags whose work Amender does under
 * another name, the ones it has no need of, and the ones that need what an offline run has not (a
 * cluster, a registry, a git remote, a kind of input Amender does not read), which are refused saying
 * why instead of as "unknown option". Short flags are read as pflag reads them: `-o=x` and `-ox` give
 * the value x, and `-ti` sets two boolean flags.
 */
import { goBool, UsageError } from './args.js';
import { CliInputError } from './errors.js';

export interface KyvernoFlags {
  /** Short flags that take a value, as the long option they stand for. */
  readonly valueShorts: ReadonlyMap<string, string>;
  /** Short boolean flags, as the long option they stand for ('' when the flag changes nothing here). */
  readonly boolShorts: ReadonlyMap<string, string>;
  /** Long spellings of Amender's options ('' when the flag changes nothing here). */
  readonly longs: ReadonlyMap<string, string>;
  /**
   * Long kyverno flags that take one value, which Amender reads with a list option: given as `--flag X`,
   * X alone is theirs (pflag), and an argument after it is a policy path, not another value.
   */
  readonly oneValueLongs: ReadonlySet<string>;
  /** Flags an offline run cannot honour, with why. */
  readonly refused: ReadonlyMap<string, string>;
}

const CLUSTER = 'kyverno apply reads resources or data from a cluster with it; amender apply runs offline on the --resource files (Namespace documents and params go with --policies)';
const EXCEPTIONS = 'kyverno apply reads PolicyExceptions with it; Amender reads none (its webhook applies no exceptions)';
const PAYLOADS = 'kyverno apply reads JSON, HTTP or Envoy payloads with it, which are no admission requests; Amender reviews Kubernetes resources';
const GIT = 'kyverno apply reads policies from a git repository with it; clone the repository and give its folder';
const TEST_GIT = 'kyverno test reads tests from a git repository with it; clone the repository and give its folder';
const REGISTRY = "kyverno reads image data from a registry with it; give the data as values for a rule's imageRegistry context entry";
const TARGETS = "kyverno apply reads mutate-existing targets with it, which Kyverno's background controller mutates; Amender runs admission mutations only";

const APPLY_REFUSED: ReadonlyMap<string, string> = new Map([
  ['-c', CLUSTER],
  ['--cluster', CLUSTER],
  ['--kubeconfig', CLUSTER],
  ['--context', CLUSTER],
  ['--cluster-wide-resources', CLUSTER],
  ['--concurrent', CLUSTER],
  ['--batch-size', CLUSTER],
  ['--continue-on-error', CLUSTER],
  ['--show-performance', CLUSTER],
  ['-n', `${CLUSTER}; amender apply --namespace NS puts the resources in NS`],
  ['--registry', REGISTRY],
  ['-b', GIT],
  ['--git-branch', GIT],
  ['--username', GIT],
  ['--password', GIT],
  ['-e', EXCEPTIONS],
  ['--exception', EXCEPTIONS],
  ['--exceptions', EXCEPTIONS],
  ['--exceptions-with-resources', EXCEPTIONS],
  ['--exceptions-within-resources', EXCEPTIONS],
  ['--exceptions-within-policies', EXCEPTIONS],
  ['--generate-exceptions', EXCEPTIONS],
  ['--generated-exception-ttl', EXCEPTIONS],
  ['--target-resource', TARGETS],
  ['--target-resources', TARGETS],
  ['--json', PAYLOADS],
  ['--http-payload', PAYLOADS],
  ['--envoy-payload', PAYLOADS],
  ['--context-file', 'kyverno apply gives CEL policies cluster data with it (resource lookups, image data); Amender reads none, and refuses a policy that needs it'],
]);

/** kyverno apply's flags; -i/--stdin and --continue-on-fail change nothing (stdout holds only the resources; every resource is applied anyway). */
export const APPLY_FLAGS: KyvernoFlags = {
  valueShorts: new Map([
    ['r', '--resource'],
    ['f', '--values-file'],
    ['s', '--set'],
    ['u', '--userinfo'],
    ['o', '--output'],
  ]),
  boolShorts: new Map([
    ['t', '--table'],
    ['p', '--policy-report'],
    ['i', ''],
  ]),
  longs: new Map([
    ['--resources', '--resource'],
    ['--crd-path', '--crd-paths'],
    ['--stdin', ''],
    ['--continue-on-fail', ''],
  ]),
  oneValueLongs: new Set(['--resources', '--set', '--parameter-resource', '--crd-paths', '--crd-path']),
  refused: APPLY_REFUSED,
};

/** kyverno test's flags. */
export const TEST_FLAGS: KyvernoFlags = {
  valueShorts: new Map([
    ['o', '--output-format'],
    ['t', '--test-case-selector'],
    ['f', '--file-name'],
  ]),
  boolShorts: new Map(),
  longs: new Map(),
  oneValueLongs: new Set(),
  refused: new Map([
    ['-b', TEST_GIT],
    ['--git-branch', TEST_GIT],
    ['--registry', REGISTRY],
  ]),
};

/** `-x...`: a group of short flags (`-` alone is standard input, `-1` a value). */
const SHORT_GROUP = /^-[A-Za-z]/;

/**
 * The long options a group of short flags stands for, as pflag reads it; undefined when a letter is none
 * of them. `next` is the argument after the group, or undefined when there is none to take.
 */
function expandShorts(arg: string, next: string | undefined, flags: KyvernoFlags): { args: string[]; tookNext: boolean } | undefined {
  const out: string[] = [];
  for (let i = 1; i < arg.length; i++) {
    const c = arg[i];
    const valued = flags.valueShorts.get(c);
    if (valued !== undefined) {
      // The rest of the group is the value (`-ox`, `-o=x`); none: the next argument is, and only it
      // (`-r a.yaml p.yaml`: p.yaml is a policy path, as pflag reads it).
      const rest = arg.slice(i + 1);
      if (rest === '') {
        out.push(next === undefined ? valued : `${valued}=${next}`);
        return { args: out, tookNext: next !== undefined };
      }
      out.push(`${valued}=${rest.startsWith('=') ? rest.slice(1) : rest}`);
      return { args: out, tookNext: false };
    }
    const bool = flags.boolShorts.get(c);
    if (bool === undefined) return undefined;
    if (bool !== '') out.push(bool);
  }
  return { args: out, tookNext: false };
}

/**
 * `argv` with kyverno's spellings made Amender's and its no-op flags dropped; a flag only a cluster (or
 * a kind of input Amender does not read) could serve is a UsageError saying why. Nothing after `--`
 * is touched; a short flag none of these know is left for the parser to refuse.
 */
export function fromKyverno(argv: readonly string[], flags: KyvernoFlags): string[] {
  const end = argv.indexOf('--');
  const stop = end < 0 ? argv.length : end;
  // The argument after i when it can be a flag's value: before `--`, and no option (pflag would take
  // `-r -s` as the file -s; the parser says instead that the flag needs a value).
  const valueAfter = (i: number): string | undefined => {
    const next = i + 1 < stop ? argv[i + 1] : undefined;
    return next === undefined || next.startsWith('--') || SHORT_GROUP.test(next) ? undefined : next;
  };
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (i >= stop) {
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const refused = flags.refused.get(name) ?? (SHORT_GROUP.test(arg) ? flags.refused.get(arg.slice(0, 2)) : undefined);
    if (refused !== undefined) throw new UsageError(`${SHORT_GROUP.test(arg) ? arg.slice(0, 2) : name}: ${refused}`);
    if (SHORT_GROUP.test(arg)) {
      const expanded = expandShorts(arg, valueAfter(i), flags);
      if (expanded === undefined) out.push(arg);
      else {
        out.push(...expanded.args);
        if (expanded.tookNext) i++;
      }
      continue;
    }
    const to = flags.longs.get(name);
    if (to === '') {
      // A boolean flag that changes nothing here (`--stdin`, `--stdin=false`); a value that is no bool is refused.
      if (eq >= 0) goBool(name.slice(2), arg.slice(eq + 1));
      continue;
    }
    const long = to ?? name;
    if (eq < 0 && flags.oneValueLongs.has(name) && valueAfter(i) !== undefined) {
      out.push(`${long}=${argv[++i]}`);
      continue;
    }
    out.push(to === undefined ? arg : `${to}${eq < 0 ? '' : arg.slice(eq)}`);
  }
  return out;
}

/**
 * The fields of one value of a kyverno StringSlice flag, which pflag reads as a line of CSV (encoding/csv):
 * `a,b` is two fields and `"a,b"` one; a bare quote inside a field, or a quoted field followed by more than
 * a comma, is an error there and a wrong command line here. Fields may be empty (`a,`); `''` gives none.
 */
function csvFields(value: string, option: string): string[] {
  if (value === '') return [];
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (value[i] === '"') {
      i++;
      for (;;) {
        const q = value.indexOf('"', i);
        if (q < 0) throw new UsageError(`--${option} ${value}: a quoted value has no closing "`);
        field += value.slice(i, q);
        i = q + 1;
        if (value[i] !== '"') break;
        field += '"';
        i++;
      }
      if (i < value.length && value[i] !== ',') throw new UsageError(`--${option} ${value}: a quoted value is followed by more than a comma`);
    } else {
      const comma = value.indexOf(',', i);
      field = value.slice(i, comma < 0 ? undefined : comma);
      if (field.includes('"')) throw new UsageError(`--${option} ${value}: a quote inside a value (quote the whole value: "a,b")`);
      i = comma < 0 ? value.length : comma;
    }
    fields.push(field);
    if (i >= value.length) break;
    i++;
    // A comma that ends the line leaves one more field, empty.
    if (i === value.length) fields.push('');
  }
  return fields;
}

/**
 * The paths of a kyverno StringSlice flag (--resource): its CSV fields; an empty path (`a.yaml,`), which
 * kyverno would fail to read, is a wrong command line.
 */
export function commaList(values: readonly string[], option: string): string[] {
  return values.flatMap((value) => {
    const fields = csvFields(value, option);
    if (fields.includes('')) throw new UsageError(`--${option} ${value}: an empty path between commas`);
    return fields;
  });
}

/** The KEY=VALUE items of kyverno apply's --set (a StringSlice): its CSV fields, empty ones dropped as kyverno drops them. */
export function setItems(values: readonly string[]): string[] {
  return values.flatMap((value) => csvFields(value, 'set')).filter((item) => item.trim() !== '');
}

/** `https://…`, `http://…`: where kyverno apply and kyverno test download from (source/http.go IsHttp, git.go IsGit). */
const REMOTE = /^https?:\/\//;

/**
 * A CliInputError for a path kyverno would download (a policy URL, a git repository of policies or
 * tests): Amender reads local files, and would otherwise say "no such file or folder" or "unknown scheme".
 */
export function refuseRemote(paths: readonly string[], what: 'policies' | 'resources' | 'tests'): void {
  const remote = paths.find((p) => REMOTE.test(p));
  if (remote === undefined) return;
  const verb = what === 'resources' ? 'download it' : 'download or clone it';
  throw new CliInputError(`${remote}: kyverno fetches ${what} from URLs and git repositories; Amender reads local files and folders: ${verb} and give its path`);
}
