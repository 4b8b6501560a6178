import { startNodeServer, type RunningServer, type TlsMaterial } from '../../src/adapters/node.js';
import { buildPolicySet, parseDocuments, type PolicySet } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet, type AppOptions, type LogRecord, type PolicySetProvider } from '../../src/server/index.js';
import { loadPolicies } from '../../src/cli/load.js';
import { nodeCliIO } from '../../src/cli/node-io.js';
import { guessResource } from '../../src/cli/resource-names.js';

export interface TestServer {
  url: string;
  server: RunningServer;
  logs: LogRecord[];
  close(): Promise<void>;
}

/** The app on the real Node adapter on a loopback port, logs captured. */
export async function startTestServer(
  options: Partial<AppOptions> & { policies: PolicySetProvider },
  tls?: TlsMaterial,
): Promise<TestServer> {
  const logs: LogRecord[] = [];
  const { app } = createApp({ logger: (r) => logs.push(r), ...options });
  const server = await startNodeServer({ fetch: app.fetch, port: 0, host: '127.0.0.1', tls });
  return { url: server.url, server, logs, close: () => server.close() };
}

export function policySetFrom(yaml: string, source = 'test.yaml'): PolicySet {
  return buildPolicySet(parseDocuments(source, yaml));
}

/** The bundled set (`policies/`), read once as the server reads `bundled`. */
export async function bundledPolicies(): Promise<PolicySetProvider> {
  const { set } = await loadPolicies(['bundled'], nodeCliIO());
  return fixedPolicySet(set, 'bundled');
}

/** A review of `object` (a Pod unless told) as the API server sends it. */
export function reviewOf(object: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const apiVersion = String(object.apiVersion ?? 'v1');
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const kind = String(object.kind ?? 'Pod');
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'e911857d-c318-11e8-bbad-025000000001',
      kind: { group, version, kind },
      resource: { group, version, resource: guessResource(kind) },
      namespace: (object.metadata as { namespace?: string } | undefined)?.namespace,
      operation: 'CREATE',
      userInfo: { username: 'admin', groups: ['system:masters'] },
      object,
      oldObject: null,
      dryRun: false,
      ...extra,
    },
  };
}
