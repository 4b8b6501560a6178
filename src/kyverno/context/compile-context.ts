/**
 * Context entries checked at load, in the form context-entries.ts loads per request; entries only a
 * cluster can fill are kept (a caller may give their values) and reported as `cluster` findings.
 */
import { getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { checkJmesPath } from '../check-expressions.js';
import { eachObject, type Report } from '../compile-report.js';
import type { ContextEntry } from '../types.js';

export function compileContext(raw: JsonValue | undefined, path: string, report: Report): ContextEntry[] {
  if (raw === undefined || raw === null) return [];
  const out: ContextEntry[] = [];
  eachObject(raw, path, report, false, (entry, at) => {
    const name = getOwn(entry, 'name');
    if (typeof name !== 'string' || name === '') {
      report.error(`${at}.name`, 'is required');
      return;
    }
    const kinds = ['variable', 'configMap', 'apiCall', 'imageRegistry', 'globalReference'].filter((k) => {
      const v = getOwn(entry, k);
      return v !== undefined && v !== null;
    });
    if (kinds.length !== 1) {
      report.error(at, 'must have exactly one of variable, configMap, apiCall, imageRegistry, globalReference');
      return;
    }
    const spec = getOwn(entry, kinds[0]);
    if (!isJsonObject(spec)) {
      report.error(`${at}.${kinds[0]}`, 'must be an object');
      return;
    }
    switch (kinds[0]) {
      case 'variable': {
        const jmesPath = getOwn(spec, 'jmesPath');
        if (jmesPath !== undefined && typeof jmesPath !== 'string') report.error(`${at}.variable.jmesPath`, 'must be a string');
        if (typeof jmesPath === 'string' && jmesPath !== '') checkJmesPath(jmesPath, `${at}.variable.jmesPath`, report);
        // `value: null` is no value: Go decodes null into a nil pointer (GetValue() == nil), so the
        // entry reads its jmesPath from the context, or is refused without one.
        const given = getOwn(spec, 'value');
        const value = given === null ? undefined : given;
        if (value === undefined && (jmesPath === undefined || jmesPath === '')) {
          report.error(`${at}.variable`, 'needs a value or a jmesPath');
        }
        const fallback = getOwn(spec, 'default');
        out.push({
          name,
          type: 'variable',
          ...(value !== undefined ? { value } : {}),
          ...(typeof jmesPath === 'string' && jmesPath !== '' ? { jmesPath } : {}),
          ...(fallback !== undefined ? { default: fallback } : {}),
        });
        break;
      }
      case 'configMap': {
        const cmName = getOwn(spec, 'name');
        const ns = getOwn(spec, 'namespace') ?? '';
        if (typeof cmName !== 'string' || cmName === '') report.error(`${at}.configMap.name`, 'is required');
        if (typeof ns !== 'string') report.error(`${at}.configMap.namespace`, 'must be a string');
        if (typeof cmName === 'string' && cmName !== '' && typeof ns === 'string' && !cmName.includes('{{') && !ns.includes('{{')) {
          report.configMaps.push({ path: `${at}.configMap`, namespace: ns, name: cmName });
        }
        out.push({ name, type: 'configMap', configMapName: String(cmName ?? ''), namespace: typeof ns === 'string' ? ns : '' });
        break;
      }
      case 'apiCall': {
        const urlPath = getOwn(spec, 'urlPath') ?? '';
        const service = getOwn(spec, 'service');
        if (typeof urlPath !== 'string' || (urlPath === '' && service === undefined)) report.error(`${at}.apiCall.urlPath`, 'is required');
        const method = getOwn(spec, 'method') ?? 'GET';
        if (method !== 'GET' && method !== 'POST') report.error(`${at}.apiCall.method`, 'must be GET or POST');
        const jmesPath = getOwn(spec, 'jmesPath');
        if (jmesPath !== undefined && typeof jmesPath !== 'string') report.error(`${at}.apiCall.jmesPath`, 'must be a string');
        if (typeof jmesPath === 'string' && jmesPath !== '') checkJmesPath(jmesPath, `${at}.apiCall.jmesPath`, report);
        report.find(
          `${at}.apiCall`,
          service !== undefined
            ? `context entry "${name}": apiCall.service makes an HTTP call to a service at admission; Amender makes no such calls, so every request the rule matches would fail`
            : `context entry "${name}": apiCall reads the cluster's API, which Amender does not reach, so every request the rule matches would fail`,
          'cluster',
        );
        const data = getOwn(spec, 'data');
        const fallback = getOwn(spec, 'default');
        out.push({
          name,
          type: 'apiCall',
          urlPath: typeof urlPath === 'string' ? urlPath : '',
          method: method === 'POST' ? 'POST' : 'GET',
          ...(data !== undefined ? { data: requestBody(data) } : {}),
          ...(typeof jmesPath === 'string' ? { jmesPath } : {}),
          ...(fallback !== undefined ? { default: fallback } : {}),
          ...(service !== undefined ? { service } : {}),
        });
        break;
      }
      default:
        report.find(
          `${at}.${kinds[0]}`,
          kinds[0] === 'imageRegistry'
            ? `context entry "${name}": imageRegistry fetches image data from a registry at admission; Amender makes no such calls, so every request the rule matches would fail`
            : `context entry "${name}": globalReference reads Kyverno's GlobalContextEntry objects, which only exist in a cluster, so every request the rule matches would fail`,
          'cluster',
        );
        out.push({ name, type: 'unsupported', what: kinds[0] });
    }
  });
  return out;
}

/** apiCall `data` is a list of `{key, value}`; the request body is the object they form. */
function requestBody(data: JsonValue): JsonValue {
  if (!Array.isArray(data)) return data;
  const body: JsonObject = {};
  for (const item of data) {
    if (isJsonObject(item) && typeof getOwn(item, 'key') === 'string') setOwn(body, getOwn(item, 'key') as string, getOwn(item, 'value') ?? null);
  }
  return body;
}
