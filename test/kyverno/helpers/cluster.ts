/**
 * What the vectors from live clusters assumed besides their own manifests: objects other steps of the
 * chainsaw tests created (ConfigMaps, the test namespace) and what kube-apiserver does around a
 * mutating webhook. Each entry names the chainsaw test it comes from.
 */
import { cloneJson, getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../../src/json/index.js';
import type { ContextSources } from '../../../src/kyverno/index.js';

/** The namespace chainsaw creates for a test; namespace-less manifests land there. */
export const CHAINSAW_NAMESPACE = 'chainsaw-quiet-lark';

const configMap = (namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labels ? { labels } : {}) },
  data,
});

const namespaceObject = (name: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
});

interface Fixture {
  configMaps?: JsonObject[];
  /** GET urlPath → response, for apiCall context entries. */
  api?: Record<string, JsonValue>;
}

const FIXTURES: Record<string, Fixture> = {
  // pkg/engine/mutation_test.go Test_variableSubstitutionCLI injects dictionary.data.env=dev1 in place
  // of fetching the ConfigMap; here the ConfigMap is among the policy sources instead.
  'u-engine-configmap-context-mocked': { configMaps: [configMap('default', 'mycmap', { env: 'dev1' })] },
  // test/conformance/chainsaw/mutate/e2e/foreach-patchstrategicmerge-context: the ConfigMap the test applies first.
  'cs-mutate-e2e-foreach-patchstrategicmerge-context-pod-foreach-patchstrategicmerge-context-pod': {
    configMaps: [
      configMap('foreach-patchstrategicmerge-context-ns', 'foreach-patchstrategicmerge-context-configmap', {
        image: 'public.ecr.aws/docker/library/nginx',
      }),
    ],
  },
  // test/conformance/chainsaw/mutate/clusterpolicy/cornercases/defaulting-namespace-labels: the Pod's
  // namespace is chainsaw's, which has only the label the API server puts on every namespace.
  'cs-mutate-clusterpolicy-cornercases-defaulting-namespace-labels-pod-webserver': {
    api: { [`/api/v1/namespaces/${CHAINSAW_NAMESPACE}`]: namespaceObject(CHAINSAW_NAMESPACE) },
  },
  'cs-mutate-clusterpolicy-cornercases-defaulting-namespace-labels-pod-webserver-2': {
    api: { [`/api/v1/namespaces/${CHAINSAW_NAMESPACE}`]: namespaceObject(CHAINSAW_NAMESPACE) },
  },
  // test/conformance/chainsaw/mutate/e2e/jmespath-logic: manifests.yaml creates namespace mutate-jmespath
  // and the ConfigMap `source` carrying the label to copy.
  ...Object.fromEntries(
    ['cs-mutate-e2e-jmespath-logic-configmap-target', 'cs-mutate-e2e-jmespath-logic-configmap-targettwo'].map((name) => [
      name,
      {
        api: {
          '/api/v1/namespaces/mutate-jmespath/configmaps': {
            apiVersion: 'v1',
            kind: 'ConfigMapList',
            items: [
              configMap('mutate-jmespath', 'kube-root-ca.crt', { 'ca.crt': '-----BEGIN CERTIFICATE-----' }),
              configMap('mutate-jmespath', 'source', { 'data.yaml': 'some: data' }, {
                'kyverno.key/copy-from': 'source',
                'kyverno.key/copy-me': 'sample-value',
              }),
            ],
          },
        },
      },
    ]),
  ),
};

export function sourcesFor(vector: string): ContextSources {
  const fixture = FIXTURES[vector] ?? {};
  const sources: { configMap?: ContextSources['configMap']; apiCall?: ContextSources['apiCall'] } = {
    configMap: (namespace, name) =>
      fixture.configMaps?.find((cm) => {
        const meta = cm.metadata as JsonObject;
        return meta.namespace === namespace && meta.name === name;
      }),
  };
  if (fixture.api) {
    const api = fixture.api;
    sources.apiCall = async ({ urlPath, method }) => {
      if (method !== 'GET' || !(urlPath in api)) throw new Error(`the test cluster has nothing at ${method} ${urlPath}`);
      return api[urlPath];
    };
  }
  return sources;
}

/**
 * Mutating admission plugins that run before webhooks: the ServiceAccount plugin mounts the API token
 * as a projected volume in every Pod that does not opt out (chainsaw assertions on volumes count it).
 */
export function beforeWebhooks(object: JsonValue): JsonValue {
  if (!isJsonObject(object) || object.kind !== 'Pod') return object;
  const spec = getOwn(object, 'spec');
  if (!isJsonObject(spec) || spec.automountServiceAccountToken === false) return object;
  const pod = cloneJson(object);
  const podSpec = pod.spec as JsonObject;
  const volume = 'kube-api-access-x7k2p';
  podSpec.volumes = [
    ...((podSpec.volumes as JsonValue[] | undefined) ?? []),
    {
      name: volume,
      projected: {
        defaultMode: 420,
        sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }],
      },
    },
  ];
  for (const list of ['containers', 'initContainers']) {
    const containers = podSpec[list];
    if (!Array.isArray(containers)) continue;
    for (const c of containers) {
      if (!isJsonObject(c)) continue;
      c.volumeMounts = [
        ...((c.volumeMounts as JsonValue[] | undefined) ?? []),
        { name: volume, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
      ];
    }
  }
  return pod;
}

/** What storage sets on create after admission: `metadata.generation` starts at 1. */
export function afterAdmission(object: JsonValue): JsonValue {
  if (!isJsonObject(object)) return object;
  const out = cloneJson(object);
  const meta = isJsonObject(out.metadata) ? out.metadata : (out.metadata = {});
  meta.generation = 1;
  return out;
}
