import { boundWarnings, type Operation } from '../../admission/index.js';
import { isJsonObject, withNumberMarksOf, type JsonObject, type JsonValue } from '../../json/index.js';
import { createPatch } from '../../jsonpatch/index.js';
import { flag, listOption, parseArgs, stringOption, UsageError, type ParsedArgs } from '../args.js';
import { readDocument } from '../documents.js';
import { CliInputError } from '../errors.js';
import type { CliCommand, CliIO } from '../io.js';
import {
  EMPTY_VALUES,
  evaluateResource,
  formatTable,
  isClusterScoped,
  loadResources,
  normalizeResource,
  parseSetPairs,
  readValuesDocument,
  ValuesFormatError,
  type LoadedResource,
  type PolicyResponse,
  readUserInfo,
  type RequestInfo,
  type TableRow,
  type ValuesSpec,
} from '../kyverno-test/index.js';
import { formatProblems, loadPolicies, type LoadedPolicies } from '../load.js';
import { jsonOutput, yamlOutput } from '../output.js';
import { writeMutated } from '../apply-output.js';
import { objectMetaProblem } from '../object-meta.js';
import { policyReports, type ReportEntry, type ReportPolicy } from '../apply-report.js';
import { APPLY_FLAGS, commaList, fromKyverno, refuseRemote, setItems } from '../kyverno-flags.js';
import { OPERATIONS, runResource } from '../resource-review.js';
import type { PolicyOutcome } from '../../engine/index.js';

export const APPLY_USAGE = `usage: amender apply --policies PATH... --resource FILE|DIR|-... [--operation CREATE|UPDATE|DELETE|CONNECT]
                     [--old FILE] [--user NAME] [--group NAME...] [--userinfo FILE] [--namespace NS]
                     [--values-file FILE] [--set KEY=VALUE,...] [--patch | --output PATH] [--quiet]
                     [--table [--detailed-results]] [--policy-report [--output-format yaml|json]]
                     [--warn-no-pass [--warn-exit-code N]]
  Runs resources through the policies as the API server would send them, and prints each mutated
  resource as YAML (or, with --patch, the JSON Patch of the reply; for several resources a list with
  one entry each, in order; null for a denied one). --resource takes files (several
  documents, \`kind: List\`), folders (their YAML/JSON files) and - (stdin). Objects of namespaced kinds
  without a namespace get \`default\`, as with \`kyverno apply\`; --namespace NS puts them (and --old) in NS,
  and objects of cluster-scoped kinds in none, as the API server does. UPDATE without --old sends the
  object as its own oldObject. --values-file (a Kyverno CLI Values file) and --set give Kyverno context values
  (the operation may come from \`request.operation\`); they also stand in for context entries only a
  cluster can fill (apiCall, imageRegistry, globalReference), as with \`kyverno apply\` — without values
  a policy with such an entry is refused. Kyverno rule results and Kyverno MutatingPolicy results (pass,
  skip, error) and admission warnings (\`Warning: …\`, policies with spec.emitWarning) go to stderr.
  --userinfo FILE (a Kyverno CLI UserInfo file) gives the username and groups, and its roles and
  clusterRoles to Kyverno policies, which then run as with values. kyverno apply's spellings are taken:
  policy PATHs as arguments (as --policies), -r/--resources, -f, -s, -u, -o (one argument each, as in
  kyverno), --parameter-resource and --crd-paths (read as policy PATHs: a param and a CRD are documents of
  the policy set), and --remove-color (the output has no colours). --output PATH writes the mutated resources to PATH if it ends in .yaml/.yml,
  else into the folder PATH, one <name>-mutated.yaml per resource name (as kyverno apply -o).
  -t/--table shows those results as kyverno apply -t's table (on stderr), --detailed-results with its
  MESSAGE column. --audit-warn is taken and changes nothing: it turns failed validate rules of Audit
  policies into warnings, and Amender runs mutate rules only (none fails). -p/--policy-report prints
  the results as kyverno apply -p does, in place of the result lines: an openreports.io ClusterReport
  \`merged\` and a PolicyReport per namespaced policy, after the resources on stdout (\`---\` between
  documents); --output-format json writes each as one line of JSON.
  Exit 1 when a request is denied or a policy result is an error (as kyverno apply), even one that
  failurePolicy Ignore lets through. As kyverno apply, --warn-no-pass exits with --warn-exit-code N
  (default 0) when no policy passed on any resource; --warn-exit-code alone changes nothing (the
  warnings it is for come of validate rules).
`;

async function readUserInfoFile(path: string | undefined, io: CliIO): Promise<RequestInfo | undefined> {
  if (path === undefined) return undefined;
  return readUserInfo(await readDocument(path, io), path);
}

interface KyvernoLines {
  lines: string[];
  /** The same results as rows of kyverno apply -t's table. */
  rows: TableRow[];
  /** The same results for -p/--policy-report. */
  report: ReportEntry[];
  counts: { pass: number; fail: number; warn: number; error: number; skip: number };
}

const RESULT: Record<string, 'pass' | 'skip' | 'error'> = { applied: 'pass', skipped: 'skip', error: 'error' };
/** The table's spelling of a result (output/color: ResultPass, ResultSkip, ResultError). */
const TABLE_RESULT = { pass: 'Pass', skip: 'Skip', error: 'Error' } as const;

/** A policy as the table names it (output/color.Policy): `namespace/name` for a namespaced one. */
function tablePolicy(id: string): string {
  return id.slice(id.indexOf('/') + 1);
}

function addRow(out: KyvernoLines, policy: string, rule: string, resource: JsonObject, result: 'pass' | 'skip' | 'error', message: string | undefined): void {
  out.rows.push({ id: out.rows.length + 1, policy, rule, resource: describeResource(resource), result: TABLE_RESULT[result], reason: '', message: message ?? '' });
}

function describeResource(r: JsonObject): string {
  const meta = (r.metadata ?? {}) as JsonObject;
  return `${typeof meta.namespace === 'string' ? `${meta.namespace}/` : ''}${String(r.kind)}/${String(meta.name ?? '')}`;
}

function ruleLines(resource: JsonObject, responses: readonly PolicyResponse[], out: KyvernoLines): void {
  for (const r of responses) for (const rule of r.rules) ruleLine(resource, r.policy.name, r.policy.id, rule, out);
}

/** `policy`: the name; `id`: `ClusterPolicy/<name>` or `Policy/<namespace>/<name>`. */
function ruleLine(resource: JsonObject, policy: string, id: string, rule: { rule: string; status: string; message?: string }, out: KyvernoLines): void {
  const result = RESULT[rule.status];
  out.counts[result]++;
  out.report.push({ policy: kyvernoReportPolicy(id), rule: rule.rule, result, message: rule.message, resource });
  out.lines.push(`policy ${policy} -> resource ${describeResource(resource)}: rule ${rule.rule}: ${result}${rule.message ? ` (${rule.message})` : ''}`);
  addRow(out, tablePolicy(id), rule.rule, resource, result, rule.message);
}

/** The policy of a Kyverno rule result, from its id (`ClusterPolicy/<name>`, `Policy/<namespace>/<name>`). */
function kyvernoReportPolicy(id: string): ReportPolicy {
  const [kind, ...rest] = id.split('/');
  return rest.length > 1 ? { source: 'kyverno', kind, namespace: rest[0], name: rest.slice(1).join('/') } : { source: 'kyverno', kind, name: rest.join('/') };
}

/** The policy of a MutatingPolicy result: its key is `name`, or `namespace/name` for a NamespacedMutatingPolicy. */
function mutatingReportPolicy(kind: string, key: string): ReportPolicy {
  const slash = key.indexOf('/');
  return kind === 'NamespacedMutatingPolicy' && slash > 0
    ? { source: 'KyvernoMutatingPolicy', kind, namespace: key.slice(0, slash), name: key.slice(slash + 1) }
    : { source: 'KyvernoMutatingPolicy', kind, name: key };
}

/**
 * A MutatingAdmissionPolicy's results for the report, as Kyverno's CLI words them (pkg/admissionpolicy/
 * mutate.go: rule named after the policy, pass "mutation is successfully applied", skip "match conditions
 * aren't met"), one per policy and binding of the first pass; an error (which Kyverno's CLI only logs) too.
 */
function mapReportEntries(resource: JsonObject, outcomes: readonly PolicyOutcome[], out: KyvernoLines): void {
  const seen = new Set<string>();
  for (const o of outcomes) {
    if (o.engine !== 'MutatingAdmissionPolicy' || o.pass !== 1) continue;
    const key = `${o.policy}\0${o.binding ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const result = o.result === 'error' ? 'error' : o.result === 'skipped' ? 'skip' : 'pass';
    const message = result === 'pass' ? 'mutation is successfully applied' : result === 'skip' ? "match conditions aren't met" : o.detail;
    out.report.push({ policy: { source: 'MutatingAdmissionPolicy', kind: 'MutatingAdmissionPolicy', name: o.policy }, rule: o.policy, result, message, resource, ...(o.binding !== undefined ? { binding: o.binding } : {}) });
  }
}

/**
 * The Kyverno rule lines of the review the webhook answered (its outcomes): what ran is what the answer
 * holds, in one evaluation under one review deadline.
 */
function outcomeRuleLines(resource: JsonObject, outcomes: readonly PolicyOutcome[], names: ReadonlyMap<string, string>, out: KyvernoLines): void {
  for (const o of outcomes) {
    if (o.engine !== 'Kyverno' || o.rules === undefined) continue;
    const policy = names.get(o.policy) ?? o.policy;
    for (const rule of o.rules) ruleLine(resource, policy, o.policy, rule, out);
  }
}

/**
 * The result of each Kyverno MutatingPolicy on the resource, as `kyverno apply` reports one per policy:
 * pass when it ran (once per policy, its autogen variants included), skip when its matchConditions were
 * false, error when it failed.
 */
function mutatingPolicyLines(resource: JsonObject, outcomes: readonly PolicyOutcome[], out: KyvernoLines): void {
  const byPolicy = new Map<string, PolicyOutcome[]>();
  for (const o of outcomes) {
    if (o.engine !== 'MutatingPolicy' || o.pass !== 1) continue;
    const list = byPolicy.get(o.policy) ?? [];
    list.push(o);
    byPolicy.set(o.policy, list);
  }
  for (const [policy, list] of byPolicy) {
    const error = list.find((o) => o.result === 'error');
    const result = error ? 'error' : list.some((o) => o.result === 'mutated' || o.result === 'unchanged') ? 'pass' : 'skip';
    out.counts[result]++;
    const detail = error?.detail ?? list.find((o) => o.detail)?.detail ?? (list.some((o) => o.result === 'mutated') ? 'mutated' : undefined);
    out.lines.push(`${list[0].policyKind} ${policy} -> resource ${describeResource(resource)}: ${result}${detail ? ` (${detail})` : ''}`);
    // The table names a rule for Kyverno ClusterPolicies and Policies only (apply/table.go).
    addRow(out, policy, '', resource, result, detail);
    out.report.push({ policy: mutatingReportPolicy(list[0].policyKind ?? 'MutatingPolicy', policy), rule: '', result, message: detail, resource });
  }
}

/** The denial a webhook would answer with: a failurePolicy=Fail policy whose rule failed. */
function kyvernoDenial(responses: readonly PolicyResponse[]): string | undefined {
  const failures = responses
    .filter((r) => r.policy.failurePolicy === 'Fail' && r.rules.some((x) => x.status === 'error'))
    .map((r) => `policy ${r.policy.id}: ${r.rules.filter((x) => x.status === 'error').map((x) => `rule ${x.rule} failed: ${x.message}`).join('; ')}`);
  return failures.length > 0 ? failures.join('; ') : undefined;
}

async function readValues(path: string | undefined, io: CliIO): Promise<ValuesSpec> {
  if (path === undefined) return EMPTY_VALUES;
  try {
    return readValuesDocument(await readDocument(path, io));
  } catch (err) {
    if (err instanceof ValuesFormatError) throw new CliInputError(`${path}: ${err.message}`);
    throw err;
  }
}

/**
 * `resource`, or a CliInputError naming `where` when it lacks apiVersion or kind (no review can be built
 * of it) or has metadata the API server's decoder refuses.
 */
function needsKind(resource: JsonObject, where: string): JsonObject {
  const missing = ['apiVersion', 'kind'].filter((k) => typeof resource[k] !== 'string' || resource[k] === '');
  if (missing.length > 0) throw new CliInputError(`${where}: the resource needs apiVersion and kind (${missing.join(' and ')} not set)`);
  const meta = objectMetaProblem(resource);
  if (meta !== undefined) throw new CliInputError(`${where}: ${meta}: the API server refuses such an object before admission`);
  return resource;
}

/**
 * `object` in namespace `ns` (`--namespace`), its numbers as written. An object of a cluster-scoped kind
 * stays in none: the API server clears its namespace before admission (EnsureObjectNamespaceMatchesRequestNamespace),
 * so no policy of a namespace ever sees one there.
 */
function withNamespace(object: JsonObject, ns: string, documents: readonly JsonObject[]): JsonObject {
  if (isClusterScoped(String(object.apiVersion), String(object.kind), documents)) return object;
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return withNumberMarksOf(object, { ...object, metadata: withNumberMarksOf(metadata, { ...metadata, namespace: ns }) });
}

/** `--warn-exit-code N`: an exit status (0 to 255; kyverno apply's default 0). */
function exitCodeOption(args: ParsedArgs): number {
  const text = stringOption(args, 'warn-exit-code');
  if (text === undefined) return 0;
  const n = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(n <= 255)) throw new UsageError(`--warn-exit-code ${text}: a whole number from 0 to 255 (an exit status)`);
  return n;
}

/** Admission warnings as kubectl prints them. */
function printWarnings(io: CliIO, warnings: readonly string[]): void {
  for (const w of warnings) io.err(`Warning: ${w}\n`);
}

/** `amender apply`: what resources become. */
export const applyCommand: CliCommand = async (argv, io) => {
  // kyverno apply's single-value flags are 'last': given twice, the last counts, as in kyverno apply.
  const args = parseArgs(fromKyverno(argv, APPLY_FLAGS), {
    policies: 'list',
    resource: 'list',
    operation: 'string',
    old: 'string',
    user: 'string',
    group: 'list',
    namespace: 'string',
    'values-file': 'last',
    set: 'list',
    patch: 'boolean',
    quiet: 'boolean',
    userinfo: 'last',
    'remove-color': 'boolean',
    output: 'last',
    table: 'boolean',
    'detailed-results': 'boolean',
    'audit-warn': 'boolean',
    'warn-exit-code': 'last',
    'warn-no-pass': 'boolean',
    'policy-report': 'boolean',
    'output-format': 'last',
    // kyverno apply's --parameter-resource and --crd-paths (StringSlices): a param of a
    // MutatingAdmissionPolicy and a CRD's schema are documents of the policy set here.
    'parameter-resource': 'list',
    'crd-paths': 'list',
  });
  // As `kyverno apply POLICY... --resource ...`: arguments are policy paths.
  const paths = [
    ...args.positionals,
    ...listOption(args, 'policies'),
    ...commaList(listOption(args, 'parameter-resource'), 'parameter-resource'),
    ...commaList(listOption(args, 'crd-paths'), 'crd-paths'),
  ];
  if (paths.length === 0) {
    // `kyverno apply --resource pod.yaml policy.yaml` reads policy.yaml as a policy; Amender's --resource takes both.
    const hint = listOption(args, 'resource').length > 1 ? ' (--resource takes every path up to the next option: give the policy paths first, or -r FILE as in kyverno)' : '';
    throw new UsageError(`--policies PATH... is required${hint}`);
  }
  // kyverno's --resource is a StringSlice: `-r a.yaml,b.yaml` names two files.
  const resourcePaths = commaList(listOption(args, 'resource'), 'resource');
  if (resourcePaths.length === 0) throw new UsageError('--resource FILE... is required');
  refuseRemote(paths, 'policies');
  refuseRemote(resourcePaths, 'resources');
  // Standard input is read once: a second `-` would read nothing and say "no resources" or "found 0".
  const stdinUses = [...paths, ...resourcePaths, stringOption(args, 'old'), stringOption(args, 'values-file'), stringOption(args, 'userinfo')].filter((p) => p === '-').length;
  if (stdinUses > 1) throw new UsageError('standard input (-) is read once: give it to one of the policy paths, --resource, --old, --values-file and --userinfo');
  const givenOperation = stringOption(args, 'operation')?.toUpperCase() as Operation | undefined;
  if (givenOperation !== undefined && !OPERATIONS.includes(givenOperation)) throw new UsageError(`--operation must be one of ${OPERATIONS.join(', ')}`);
  let setValues: Record<string, JsonValue>;
  try {
    setValues = parseSetPairs(setItems(listOption(args, 'set')));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values = await readValues(stringOption(args, 'values-file'), io);
  const userInfoFile = await readUserInfoFile(stringOption(args, 'userinfo'), io);
  // Roles reach a Kyverno rule only as Kyverno's CLI runs it: the webhook cannot know a user's roles.
  const withRoles = userInfoFile?.roles !== undefined || userInfoFile?.clusterRoles !== undefined;
  const withValues = stringOption(args, 'values-file') !== undefined || Object.keys(setValues).length > 0 || withRoles;
  const quiet = flag(args, 'quiet');
  const outputPath = stringOption(args, 'output');
  const warnExitCode = exitCodeOption(args);
  const policyReport = flag(args, 'policy-report');
  const reportFormat = stringOption(args, 'output-format') ?? 'yaml';
  if (reportFormat !== 'yaml' && reportFormat !== 'json') throw new UsageError(`--output-format ${reportFormat}: yaml or json (the format of the --policy-report)`);
  if (policyReport && flag(args, 'patch')) throw new UsageError('--policy-report follows the resources on standard output as YAML documents; --patch prints JSON: give one');
  if (outputPath !== undefined && flag(args, 'patch')) throw new UsageError('--output writes the mutated resources; --patch prints the patch: give one');

  // With values, they stand in for context entries only a cluster can fill (as `kyverno apply`).
  const loaded: LoadedPolicies = await loadPolicies(paths, io, { contextValues: withValues, unknownVariables: 'keep' });
  const { set, documents } = loaded;
  if (!quiet && set.problems.length > 0) io.err(`warning: the policy set has problems:\n${formatProblems(set)}`);
  if (withValues && set.mutatingPolicies.length > 0) {
    throw new CliInputError(
      `${withRoles ? '--userinfo roles' : '--values-file/--set'} reach Kyverno policies only (run as kyverno apply runs them); this policy set also has MutatingAdmissionPolicies or Kyverno MutatingPolicies, which they cannot reach`,
    );
  }
  const resources: LoadedResource[] = await loadResources(resourcePaths, io, documents);
  if (resources.length === 0) throw new CliInputError(`no resources in ${resourcePaths.join(', ')}`);
  // Refused before any is reviewed, naming where it is (kubectl: "error validating data: kind not set").
  for (const { value, where } of resources) needsKind(value, where);
  const oldPath = stringOption(args, 'old');
  if (oldPath !== undefined && resources.length > 1) throw new UsageError('--old goes with a single resource');
  const namespace = stringOption(args, 'namespace');
  const inNamespace = (object: JsonObject) => (namespace !== undefined ? withNamespace(object, namespace, documents) : object);
  // The old object is in the same namespace as the new one, as in the cluster.
  const oldObject = oldPath !== undefined ? inNamespace(normalizeResource(needsKind(await readDocument(oldPath, io), oldPath), documents)) : undefined;
  const groups = listOption(args, 'group').length > 0 ? listOption(args, 'group') : (userInfoFile?.groups ?? []);
  const username = stringOption(args, 'user') ?? userInfoFile?.username;

  const kyverno: KyvernoLines = { lines: [], rows: [], report: [], counts: { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 } };
  // An outcome names its Kyverno policy by id (`ClusterPolicy/<name>`, `Policy/<namespace>/<name>`); a line by name.
  const kyvernoNames = new Map(set.kyvernoPolicies.map((p) => [p.id, p.name]));
  const objects: JsonValue[] = [];
  const patches: JsonValue[] = [];
  let denied = false;
  const mapErrors = new Set<string>();
  let mapPasses = 0;
  for (const { value: object } of resources) {
    const target = inNamespace(object);
    // The operation: --operation, else the values' request.operation, else CREATE.
    const fromValues = setValues['request.operation'] ?? values.globalValues['request.operation'];
    const operation = givenOperation ?? (typeof fromValues === 'string' && OPERATIONS.includes(fromValues as Operation) ? (fromValues as Operation) : 'CREATE');
    const old = operation === 'UPDATE' || operation === 'DELETE' ? (oldObject ?? target) : undefined;
    const userInfo: RequestInfo = { ...userInfoFile, username, groups: groups.length > 0 ? groups : undefined };
    if (withValues) {
      // Only the Kyverno step takes values, so it runs as Kyverno's CLI runs it and its result is the answer.
      const responses = await evaluateResource(target, {
        set,
        policies: set.kyvernoPolicies,
        documents,
        values,
        setValues,
        userInfo,
        operation,
        ...(old ? { oldObject: old } : {}),
        unknownNamespace: 'empty',
        unknownRoles: 'empty',
      });
      ruleLines(target, responses, kyverno);
      const denial = kyvernoDenial(responses);
      if (denial === undefined) printWarnings(io, boundWarnings(responses.flatMap((r) => r.warnings ?? [])));
      if (denial !== undefined) {
        denied = true;
        io.err(`denied (403 Forbidden): ${describeResource(target)}: ${denial}\n`);
        patches.push(null);
        continue;
      }
      const final = responses.length > 0 ? responses[responses.length - 1].patched : target;
      objects.push(final);
      patches.push(createPatch(target, final));
      continue;
    }
    const outcome = await runResource(set, { object: target, oldObject: old, operation, username: userInfo.username, uid: userInfo.uid, groups: userInfo.groups, extra: userInfo.extra, documents });
    printWarnings(io, outcome.warnings);
    // A MutatingAdmissionPolicy's error under failurePolicy Ignore has no result line, but counts as kyverno apply counts it.
    for (const o of outcome.outcomes) {
      if (o.engine === 'MutatingAdmissionPolicy' && o.pass === 1 && (o.result === 'mutated' || o.result === 'unchanged')) mapPasses++;
      if (o.engine === 'MutatingAdmissionPolicy' && o.result === 'error') mapErrors.add(`MutatingAdmissionPolicy ${o.policy} -> resource ${describeResource(target)}: error${o.detail ? ` (${o.detail})` : ''}`);
    }
    outcomeRuleLines(target, outcome.outcomes, kyvernoNames, kyverno);
    mutatingPolicyLines(target, outcome.outcomes, kyverno);
    mapReportEntries(target, outcome.outcomes, kyverno);
    if (!outcome.allowed) {
      denied = true;
      const where = resources.length > 1 ? `${describeResource(target)}: ` : '';
      io.err(`denied (${outcome.status.code}${outcome.status.reason ? ` ${outcome.status.reason}` : ''}): ${where}${outcome.status.message}\n`);
      // A denied request stores nothing: no patch, and its place in the list kept so the others line up.
      patches.push(null);
      continue;
    }
    objects.push(outcome.object);
    patches.push(outcome.patch);
  }
  // As kyverno apply -p: the report in place of the result lines (and of the table).
  if (!quiet && !policyReport && (set.kyvernoPolicies.length > 0 || set.mutatingPolicies.some((b) => b.kyverno))) {
    const c = kyverno.counts;
    // As kyverno apply -t: the table in place of the lines and the counts.
    if (flag(args, 'table')) io.err(formatTable(kyverno.rows, flag(args, 'detailed-results')));
    else io.err(`${kyverno.lines.map((l) => `${l}\n`).join('')}pass: ${c.pass}, fail: ${c.fail}, warn: ${c.warn}, error: ${c.error}, skip: ${c.skip}\n`);
  }
  if (flag(args, 'patch')) {
    io.out(jsonOutput(resources.length === 1 ? patches[0] : patches) + '\n');
  } else if (outputPath !== undefined) {
    await writeMutated(outputPath, objects, io);
  } else {
    io.out(objects.map((o) => yamlOutput(o)).join('---\n'));
  }
  if (policyReport) {
    const reports = policyReports(kyverno.report, documents, reportFormat);
    const printed = !flag(args, 'patch') && outputPath === undefined && objects.length > 0;
    io.out(reports.map((r, i) => (printed || i > 0 ? `---\n${r}` : r)).join(''));
  }
  if (denied) return 1;
  // kyverno apply exits 1 when a policy result is an error (apply/command.go exit: "exit as there are
  // policy errors"), even where a webhook's failurePolicy Ignore lets the request through.
  const errors = kyverno.counts.error + mapErrors.size;
  if (errors > 0) {
    for (const line of mapErrors) io.err(`${line}\n`);
    io.err(`amender: exit 1: ${errors === 1 ? '1 policy result is an error' : `${errors} policy results are errors`} (the request${resources.length > 1 ? 's were' : ' was'} allowed by failurePolicy Ignore; kyverno apply also exits 1 on policy errors)\n`);
    return 1;
  }
  // kyverno apply --warn-no-pass: no policy passed on any resource exits with --warn-exit-code (its
  // warnings, failed validate rules of unscored policies, never come of mutate rules).
  if (flag(args, 'warn-no-pass') && kyverno.counts.pass + mapPasses === 0) {
    io.err(`amender: exit ${warnExitCode}: no policy passed on any resource (--warn-no-pass)\n`);
    return warnExitCode;
  }
  return 0;
};
