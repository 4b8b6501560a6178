/**
 * Rule and foreach `context` entries (pkg/engine/context/loaders). Like Kyverno (deferred loading, on by
 * default) each is registered and loaded when a query first names it, only entries registered before it
 * being loadable while it loads; an entry no query names is never loaded, so its failure is no error, and
 * its value goes under its name as one key (a dot in the name is no path). What they load:
 * - `variable`: `value` (substituted), optionally narrowed by `jmesPath`, or `jmesPath` over the whole
 *   context; `default` when the result is null or the query fails; a null outcome is an error;
 * - `configMap`: `{data, metadata}` of a ConfigMap found among the policy sources (namespace defaults to
 *   the policy's own, or `default` for a ClusterPolicy; a Policy may not read other namespaces);
 * - `apiCall`: asks the configured API resolver, then applies `jmesPath`; without a resolver it is a
 *   clear error (a serverless webhook normally has no cluster connection);
 * - `imageRegistry`, `globalReference`: not available here, a clear error.
 */
import { isReviewAborted } from '../../guard/index.js';
import { getOwn, goJsonKind, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { goSprint, strconvQuote } from '../../go/index.js';
import { KyvernoRuleError, messageOf } from '../errors.js';
import { JmesPathError } from '../jmespath/index.js';
import { goCleanPath } from '../jmespath/gostrings.js';
import { measureValue } from '../measure.js';
import type { ContextEntry } from '../types.js';
import { goSprintS, goTypeName } from '../go/fmt-verbs.js';
import { substituteAll, type SubstitutionScope } from './variables.js';

export interface ApiCallRequest {
  readonly urlPath: string;
  readonly method: 'GET' | 'POST';
  readonly data?: JsonValue;
  /** `ClusterPolicy/name` or `Policy/ns/name` of the policy asking. */
  readonly policy: string;
}

/** What context entries may read besides the request. */
export interface ContextSources {
  /** A ConfigMap from the policy sources, or undefined when none has that namespace/name. */
  readonly configMap?: (namespace: string, name: string) => JsonObject | undefined;
  /** The live cluster API, when one is configured. Rejects with an Error on failure. */
  readonly apiCall?: (request: ApiCallRequest) => Promise<JsonValue>;
}

export interface EntryScope extends SubstitutionScope {
  readonly sources: ContextSources;
  readonly policyId: string;
  /** Namespace of a namespaced Policy; undefined for a ClusterPolicy. */
  readonly policyNamespace?: string;
  /** Dotted names the caller set for this rule (KyvernoInput.ruleValues): external entries they cover are not loaded. */
  readonly presetNames?: ReadonlySet<string>;
}

/** Whether preset values cover `name` (the name itself, or a path below it such as `name.data.key`). */
function presetCovers(names: ReadonlySet<string> | undefined, name: string): boolean {
  if (!names) return false;
  for (const n of names) if (n === name || n.startsWith(`${name}.`)) return true;
  return false;
}

export async function loadContextEntries(entries: readonly ContextEntry[], scope: EntryScope): Promise<void> {
  // An index loop, not for-of: the entries are a compiled policy's frozen list, which V8 iterates slowly.
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    scope.ctx.guard.check();
    if (entry.type !== 'variable' && presetCovers(scope.presetNames, entry.name)) continue;
    // Kyverno registers each entry as a deferred loader (on by default) and loads it when a query first
    // names it: an entry nothing reads is never loaded, and its failure is no error. Its value goes under
    // the entry's name as one key. An API call is awaited here instead (a query cannot wait for it).
    switch (entry.type) {
      case 'variable':
        scope.ctx.defer(entry.name, () => loadVariable(entry, scope), false);
        break;
      case 'configMap':
        scope.ctx.defer(entry.name, () => loadConfigMap(entry, scope), true, (m) => `failed to add config map for context entry ${entry.name}: ${m}`);
        break;
      case 'apiCall': {
        // Its failure is kept for the first query that names it, as a deferred load would fail there.
        let load: () => JsonValue;
        let stored = 'resource data to';
        try {
          const { value, narrowed } = await loadApiCall(entry, scope);
          if (narrowed) stored = 'APICall results for';
          load = () => value;
        } catch (error) {
          if (isReviewAborted(error)) throw error;
          load = () => {
            throw error;
          };
        }
        // apiLoader.LoadData wrapping apiCall.Store's error (pkg/engine/apicall/apiCall.go transformAndStore).
        scope.ctx.defer(entry.name, load, true, (m) => `failed to store data for APICall: failed to add ${stored} context entry ${entry.name}: ${m}`);
        break;
      }
      case 'unsupported':
        scope.ctx.defer(
          entry.name,
          () => {
            throw new KyvernoRuleError(`context entry "${entry.name}": ${entry.what} is not supported by Amender`);
          },
          false,
        );
        break;
    }
  }
}

/**
 * pkg/engine/context/loaders/variable.go loadVariable, with its error texts: a field whose variables fail
 * as `failed to substitute variables in context entry <name> <field>: …`, a jmesPath that substitutes to
 * no string as `jmespath value must be a string <name> <jmesPath>: <nil>`, a query of the entry's
 * value fails as `failed to apply jmespath <path> to variable <value>: <error>` (the value as Go's %v
 * prints it; a compile error reads `failed to compile JMESPath: …`), a query of the context as
 * context.Query reports it (`incorrect query …` / `JMESPath query failed: …`, ../context.ts) on `<nil>`.
 */
function loadVariable(entry: Extract<ContextEntry, { type: 'variable' }>, scope: EntryScope): JsonValue {
  let path = '';
  if (entry.jmesPath !== undefined) {
    const substituted = substituteEntryField(entry.name, entry.jmesPath, scope);
    // Go's %v of the nil error it has at hand there.
    if (typeof substituted !== 'string') throw new KyvernoRuleError(`jmespath value must be a string ${entry.name} ${entry.jmesPath}: <nil>`);
    path = substituted;
  }
  const fallback = entry.default === undefined ? null : substituteEntryField(entry.name, entry.default, scope);
  let output: JsonValue = fallback;
  if (entry.value !== undefined) {
    const value = substituteEntryField(entry.name, entry.value, scope);
    if (path === '') {
      output = value;
    } else {
      try {
        output = scope.ctx.queryOn(path, value);
      } catch (error) {
        if (isReviewAborted(error)) throw error;
        if (fallback === null) {
          const why = isSyntaxError(error) ? `failed to compile JMESPath: ${path}, error: ${messageOf(error)}` : messageOf(error);
          throw new KyvernoRuleError(`failed to apply jmespath ${path} to variable ${goSprint(value)}: ${why}`);
        }
      }
    }
  } else if (path !== '') {
    try {
      const result = scope.ctx.query(path);
      if (result !== null) output = result;
    } catch (error) {
      if (isReviewAborted(error)) throw error;
      // Query's own text (`incorrect query …`, `JMESPath query failed: …`), or an entry's load error as it is.
      if (fallback === null) throw new KyvernoRuleError(`failed to apply jmespath ${path} to variable <nil>: ${messageOf(error)}`);
    }
  }
  if (output === null) throw new KyvernoRuleError(`failed to add context entry for variable ${entry.name} since it evaluated to nil`);
  return output;
}

/**
 * One field of a variable entry, substituted: a failure reads `failed to substitute variables in context
 * entry <name> <field>: <error>`, the field as the loader prints it with %s (printed only then).
 */
function substituteEntryField(name: string, field: JsonValue, scope: EntryScope): JsonValue {
  try {
    return substituteAll(field, scope);
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    throw new KyvernoRuleError(`failed to substitute variables in context entry ${name} ${goSprintS(field)}: ${messageOf(error)}`);
  }
}

/** configMap.name or .namespace substituted: a failure, or a value that is no string, as fetchConfigMap words it. */
function configMapField(entryName: string, field: string, text: string, scope: EntryScope, failed: (message: string) => Error): string {
  let value: JsonValue;
  try {
    value = substituteAll(text, scope);
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    throw failed(`failed to substitute variables in context ${entryName} configMap.${field} ${text}: ${messageOf(error)}`);
  }
  if (typeof value !== 'string') throw failed(`failed to substitute variables in context ${entryName} configMap.${field} ${text}: expected string, got ${goTypeName(value)}`);
  return value;
}

const isSyntaxError = (error: unknown) => error instanceof JmesPathError && error.kind === 'syntax';

/**
 * pkg/engine/context/loaders/configmap.go fetchConfigMap, with its error texts under LoadData's `failed to
 * retrieve config map for context entry <name>: …`. Kyverno's resolver is the cluster's API, which
 * answers `configmaps "<name>" not found`; Amender's is the policy sources, and says so.
 */
function loadConfigMap(entry: Extract<ContextEntry, { type: 'configMap' }>, scope: EntryScope): JsonValue {
  const failed = (message: string) => new KyvernoRuleError(`failed to retrieve config map for context entry ${entry.name}: ${message}`);
  const name = configMapField(entry.name, 'name', entry.configMapName, scope, failed);
  let namespace = configMapField(entry.name, 'namespace', entry.namespace, scope, failed);
  if (namespace === '') namespace = scope.policyNamespace ?? 'default';
  if (scope.policyNamespace !== undefined && namespace !== scope.policyNamespace) {
    throw failed(`context entry ${entry.name}: configMap namespace ${strconvQuote(namespace)} is different from policy namespace ${strconvQuote(scope.policyNamespace)}`);
  }
  const cm = scope.sources.configMap?.(namespace, name);
  if (!cm) throw failed(`failed to get configmap ${namespace}/${name} : configmaps ${strconvQuote(name)} not found among the policy sources`);
  // As fetchConfigMap marshals the typed ConfigMap: `data` is null when the ConfigMap has none (a nil
  // map), and ObjectMeta always writes `creationTimestamp` (null when unset: metav1.Time of zero).
  const data = getOwn(cm, 'data');
  const metadata = getOwn(cm, 'metadata');
  const meta: JsonObject = isJsonObject(metadata) ? { ...metadata } : {};
  if (getOwn(meta, 'creationTimestamp') === undefined) meta.creationTimestamp = null;
  return { data: isJsonObject(data) ? data : null, metadata: meta };
}

/**
 * The entry's value; `narrowed` when it is the result of its jmesPath (Kyverno stores the response, or
 * the default, as it came otherwise). As pkg/engine/apicall/apiCall.go: the `default` stands in only for
 * a call that fails, as the policy wrote it (Fetch returns `Default.Raw`; the entry is substituted, so a
 * bad variable there still fails, but the substituted copy is not what is stored), and is stored without
 * the jmesPath; `default: null` is no default (a nil pointer in Go). A jmesPath that gives null stores
 * null, and one that fails is an error, default or not.
 */
async function loadApiCall(entry: Extract<ContextEntry, { type: 'apiCall' }>, scope: EntryScope): Promise<{ value: JsonValue; narrowed: boolean }> {
  const resolver = scope.sources.apiCall;
  if (!resolver) {
    throw new KyvernoRuleError(
      `context entry "${entry.name}": apiCall needs a live cluster API, and none is configured for this policy set`,
    );
  }
  if (entry.service !== undefined) {
    throw new KyvernoRuleError(`context entry "${entry.name}": apiCall.service (external HTTP calls) is not supported`);
  }
  // LoadData's wraps: Fetch's errors, then Store's (the failed call's default is Fetch's answer).
  const fetchFailed = (message: string) => new KyvernoRuleError(`failed to fetch data for APICall: ${message}`);
  // Fetch substitutes the whole entry (SubstituteAllInType), its jmesPath and default too, before the call.
  let call: JsonValue;
  try {
    call = substituteAll(apiCallDocument(entry), scope);
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    throw fetchFailed(`failed to substitute variables in context entry ${entry.name} ${entry.urlPath}: ${messageOf(error)}`);
  }
  const urlPath = apiCallText(call, 'urlPath', entry, fetchFailed);
  const path = apiCallText(call, 'jmesPath', entry, fetchFailed);
  const data = isJsonObject(call) ? getOwn(call, 'data') : undefined;
  if (scope.policyNamespace !== undefined) {
    // Fetch's check (CVE-2026-22039): the cleaned path must name the policy's namespace.
    const cleaned = goCleanPath(urlPath) || '.';
    const m = NAMESPACE_PATH.exec(cleaned);
    if (!m) throw fetchFailed(`path ${cleaned} does not contain a namespace segment, which is required for namespaced policies`);
    if (m[2] !== scope.policyNamespace) {
      throw fetchFailed(`path ${cleaned} refers to namespace ${m[2]}, which is different from the policy namespace ${scope.policyNamespace}`);
    }
  }
  const fallback = entry.default === undefined || entry.default === null ? undefined : entry.default;
  let response: JsonValue;
  try {
    response = await resolver({ urlPath, method: entry.method, data, policy: scope.policyId });
    // An API response enters the review like any other value.
    measureValue(response, scope.ctx.guard, `the response of ${urlPath}`);
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    if (fallback !== undefined) return { value: fallback, narrowed: false };
    // executeK8sAPICall's text, the resolver's error in place of client-go's.
    throw fetchFailed(`failed to ${entry.method} resource with raw url: ${urlPath}: ${messageOf(error)}`);
  }
  if (path === '') return { value: response, narrowed: false };
  try {
    return { value: scope.ctx.queryOn(path, response), narrowed: true };
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    throw new KyvernoRuleError(`failed to store data for APICall: failed to apply JMESPath ${path} for context entry ${entry.name}: ${messageOf(error)}`);
  }
}

/** apiCall.go's namespacePathRegex (Go's `.` stops at a newline only). */
const NAMESPACE_PATH = /^\/api(s)?\/[^\n]*?\/namespaces\/([^/]+)\/?[^\n]*$/;

/** The entry as Kyverno substitutes it (ContextAPICall without service, which Amender refuses), made once. */
const apiCallDocuments = new WeakMap<object, JsonObject>();
function apiCallDocument(entry: Extract<ContextEntry, { type: 'apiCall' }>): JsonObject {
  let doc = apiCallDocuments.get(entry);
  if (doc === undefined) {
    doc = Object.freeze({
      urlPath: entry.urlPath,
      method: entry.method,
      ...(entry.data !== undefined ? { data: entry.data } : {}),
      ...(entry.jmesPath !== undefined ? { jmesPath: entry.jmesPath } : {}),
      ...(entry.default !== undefined && entry.default !== null ? { default: entry.default } : {}),
    }) as JsonObject;
    apiCallDocuments.set(entry, doc);
  }
  return doc;
}

/**
 * A text field of the substituted entry, as json.Unmarshal reads it back into ContextAPICall: null is
 * "", any other value that is no string the decoder's type error.
 */
function apiCallText(call: JsonValue, field: 'urlPath' | 'jmesPath', entry: { name: string; urlPath: string }, failed: (message: string) => Error): string {
  const value = isJsonObject(call) ? getOwn(call, field) : undefined;
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  throw failed(
    `failed to substitute variables in context entry ${entry.name} ${entry.urlPath}: json: cannot unmarshal ${goJsonKind(value)} into Go struct field ContextAPICall.${field} of type string`,
  );
}
