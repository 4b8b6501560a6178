/**
 * `kyverno apply`'s command line as `amender apply` reads it (commands/apply/command.go flags): the
 * flags whose work Amender does under another name, the ones it has no need of, and the ones that need
 * what an offline run has not (a cluster, a registry, a git remote, a kind of input Amender does not
 * read), which are refused saying why instead of as "unknown option".
 */
import { UsageError } from './args.js';

/** Kyverno's spellings of amender apply's options. */
const SPELLINGS: ReadonlyMap<string, string> = new Map([
  ['-r', '--resource'],
  ['--resources', '--resource'],
  ['-f', '--values-file'],
  ['-s', '--set'],
  ['-u', '--userinfo'],
  ['-o', '--output'],
  ['-t', '--table'],
  ['-p', '--policy-report'],
  // A param of a MutatingAdmissionPolicy and a CRD's schema are documents of the policy set here.
  ['--parameter-resource', '--policies'],
  ['--crd-paths', '--policies'],
  ['--crd-path', '--policies'],
]);

/**
 * Flags with nothing to do here: stdout holds only the resources already (-i drops kyverno's
 * "policy … applied to" lines for kubectl), and every resource is applied whatever another's outcome.
 */
const NO_OPS: ReadonlySet<string> = new Set(['-i', '--stdin', '--continue-on-fail']);

const CLUSTER = 'kyverno apply reads resources or data from a cluster with it; amender apply runs offline on the --resource files (Namespace documents and params go with --policies)';
const EXCEPTIONS = 'kyverno apply reads PolicyExceptions with it; Amender reads none (its webhook applies no exceptions)';
const PAYLOADS = 'kyverno apply reads JSON, HTTP or Envoy payloads with it, which are no admission requests; Amender reviews Kubernetes resources';
const GIT = 'kyverno apply reads policies from a git repository with it; clone the repository and give its folder';
const TARGETS = "kyverno apply reads mutate-existing targets with it, which Kyverno's background controller mutates; Amender runs admission mutations only";

/** Flags an offline run cannot honour, with why. */
const REFUSED: ReadonlyMap<string, string> = new Map([
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
  ['--registry', "kyverno apply reads image data from a registry with it; give the data as values (--values-file) for a rule's imageRegistry context entry"],
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

/**
 * `argv` with kyverno's spellings made Amender's and its no-op flags dropped; a flag only a cluster (or
 * a kind of input Amender does not read) could serve is a UsageError saying why. Nothing after `--`
 * is touched.
 */
export function fromKyvernoApply(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  const out: string[] = [];
  for (const [i, arg] of argv.entries()) {
    if (end >= 0 && i >= end) {
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const refused = REFUSED.get(name);
    if (refused !== undefined) throw new UsageError(`${name}: ${refused}`);
    if (NO_OPS.has(name) && eq < 0) continue;
    const to = SPELLINGS.get(name);
    out.push(to === undefined ? arg : `${to}${eq < 0 ? '' : arg.slice(eq)}`);
  }
  return out;
}

/**
 * The values of a kyverno StringSlice flag: each value is a line of CSV (pflag reads it with
 * encoding/csv), so `a.yaml,b.yaml` is two paths and `"a,b.yaml"` one; a bare quote inside a field is
 * an error there, and here, as is an empty path (`a.yaml,`), which kyverno would fail to read.
 */
export function commaList(values: readonly string[], option: string): string[] {
  return values.flatMap((value) => {
    if (value === '') return [];
    const fields: string[] = [];
    let i = 0;
    for (;;) {
      let field = '';
      if (value[i] === '"') {
        i++;
        for (;;) {
          const q = value.indexOf('"', i);
          if (q < 0) throw new UsageError(`--${option} ${value}: a quoted path has no closing "`);
          field += value.slice(i, q);
          i = q + 1;
          if (value[i] !== '"') break;
          field += '"';
          i++;
        }
        if (i < value.length && value[i] !== ',') throw new UsageError(`--${option} ${value}: a quoted path is followed by more than a comma`);
      } else {
        const comma = value.indexOf(',', i);
        field = value.slice(i, comma < 0 ? undefined : comma);
        if (field.includes('"')) throw new UsageError(`--${option} ${value}: a quote inside a path (quote the whole path: "a,b.yaml")`);
        i = comma < 0 ? value.length : comma;
      }
      if (field === '' || i + 1 === value.length) throw new UsageError(`--${option} ${value}: an empty path between commas`);
      fields.push(field);
      if (i >= value.length) break;
      i++;
    }
    return fields;
  });
}
