/**
 * The Node server (dist/node/server.cjs, run by main.js: node-entry.ts): Knative, a container, or `npm start`.
 * Configuration from the environment and AMENDER_CONFIG (see README "Configuration"). The server listens
 * at once (`/healthz` answers while policies load); the default policy set and each cluster's are read
 * from their sources (bundled, file://, s3://) side by side, each set answering 503 until it has loaded,
 * so a slow or unreachable source delays only its own set. They are refreshed every
 * AMENDER_REFRESH_SECONDS (and when a watched folder changes); a source that cannot be read keeps the
 * last good set. A rotated TLS certificate and key are put in force when their files change
 * (node-tls-reload.ts). SIGHUP refreshes every set now and reloads the TLS certificate; SIGTERM/SIGINT
 * turn /readyz 503, stop the refreshes, drain (node-drain.ts) and exit 0.
 */
import { readFileSync } from 'node:fs';
import { BodyBudget, CallbackCounter, clusterSetName, createApp, formatLogLine, jsonLineLogger, redactPath, statusBody, type Logger } from '../server/index.js';
import { decodeDocumentBytes, registerSourceMetrics } from '../sources/index.js';
import { startNodeServer, type RunningServer, type TlsMaterial } from './node.js';
import { CONFIG_FILE_VARIABLE, ConfigError, readNodeConfig, unknownVariableWarnings, type NodeConfig } from './node-config.js';
import { exampleHint } from './node-hint.js';
import { capEventLog } from './node-cap-log.js';
import { createNodePolicySets, type NodePolicySets, type NodePolicySetsOptions } from './node-policies.js';
import { createReviewPool } from './node-pool.js';
import { defaultBodyBudgetMb, idleTimeoutMs } from './node-defaults.js';
import { memoryLimitBytes } from './pool/index.js';
import { certificateExpiryReader, createTlsReloader, registerTlsMetrics, type TlsReloader } from './node-tls-reload.js';
import { bufferedStdout } from './node-log.js';
import { tlsPairProblem } from './node-tls-pair.js';
import { markStartup } from './startup-marks.js';
import type { ScriptCacheStatus } from './script-cache.js';

markStartup('modulesLoaded');

/** Connections (and requests) the probe port holds at once: a kubelet's probes and a monitor or two. */
const PROBE_PORT_CONNECTIONS = 64;

function fail(message: string): never {
  process.stderr.write(`amender: ${message}\n`);
  process.exit(2);
}

function readConfig(): NodeConfig {
  const file = process.env[CONFIG_FILE_VARIABLE];
  let text: string | undefined;
  if (file) {
    try {
      // Decoded as policy files are: a byte-order mark dropped, UTF-16 with its mark read as UTF-16.
      text = decodeDocumentBytes(readFileSync(file));
    } catch (err) {
      fail(`cannot read ${CONFIG_FILE_VARIABLE}=${file}: ${(err as Error).message}`);
    }
  }
  try {
    return readNodeConfig(process.env, text);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

function readTls(config: NodeConfig): TlsMaterial | undefined {
  if (!config.tls) return undefined;
  let material: TlsMaterial;
  try {
    material = { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) };
  } catch (err) {
    fail(`cannot read the TLS certificate or key: ${(err as Error).message}`);
  }
  // Checked here, not left to the listener: its error names neither file and reads as a port problem.
  const problem = tlsPairProblem(material, config.tls);
  if (problem !== undefined) fail(`cannot serve HTTPS: ${problem}`);
  return material;
}

function createSets(config: NodeConfig, logger: Logger, beforeApply: NodePolicySetsOptions['beforeApply']): NodePolicySets {
  try {
    return createNodePolicySets({ policySources: config.policySources, refreshSeconds: config.refreshSeconds, clusters: config.clusters, env: process.env, logger, beforeApply });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

/** Where the server listens, for a message: every address when AMENDER_HOST is not set. */
function listenAddress(host: string | undefined, port: number): string {
  return host === undefined ? `port ${port} of every address` : `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The request target's path, for the log line of a request refused before routing. */
function targetPath(target: string): string {
  const query = target.indexOf('?');
  return redactPath(query === -1 ? target : target.slice(0, query));
}

/**
 * Runs the server until a signal stops it. `mainUrl`: the URL of the entry (dist/node/main.js), beside
 * which the review worker's entry is; `codeCache`: what became of the server script's code cache, for the
 * `listening` log line.
 */
export async function runNodeServer(mainUrl: string, { codeCache }: { codeCache?: ScriptCacheStatus } = {}): Promise<void> {
  const config = readConfig();
  const stdout = bufferedStdout({
    maxBacklogBytes: config.logBacklogBytes,
    droppedNotice: (count) =>
      config.logLevel === 'error' ? '' : formatLogLine({ level: 'warn', msg: 'log lines dropped', count, reason: 'standard output held AMENDER_LOG_BACKLOG_BYTES unwritten', maxBacklogBytes: config.logBacklogBytes }),
  });
  const logger = jsonLineLogger(stdout.write, { minLevel: config.logLevel });
  for (const warning of unknownVariableWarnings(process.env)) logger({ level: 'warn', msg: 'unknown setting', warning });
  // A large set is encoded for the review workers a slice at a time before it is applied (encodeAhead),
  // and handed to them once applied (the same turn), so that its encoding is not held until a review of
  // that set comes; the sets first load once the pool below exists.
  const sets = createSets(config, logger, async (inputs, context) => {
    if (!(await pool?.encodeAhead(inputs, context))) return;
    setImmediate(() => {
      const refresher = context.name === 'default' ? sets.default : sets.clusters.get(context.name);
      if (pool && refresher && !stopping) pool.prepare(context.name === 'default' ? 'default' : clusterSetName(context.name), refresher.provider());
    });
  });

  // A container's memory limit sizes the workers' heaps and the body budget.
  const memoryLimit = memoryLimitBytes();
  const pool = await createReviewPool(process.env, mainUrl, logger, fail, memoryLimit);
  let stopping = false;
  const bodyBudgetMb = config.bodyBudgetMb ?? defaultBodyBudgetMb(memoryLimit);
  const bodyBudget = new BodyBudget(bodyBudgetMb * 2 ** 20);
  const amender = createApp({
    bodyBudget,
    policies: sets.default.provider,
    clusters: sets.clusters,
    limits: config.limits,
    logger,
    draining: () => stopping,
    ...(pool ? { reviewer: pool.reviewer, unavailable: () => pool.unavailable() } : {}),
  });
  registerSourceMetrics(amender.metrics.registry, () => sets.refreshers());
  pool?.registerMetrics(amender.metrics.registry);
  amender.metrics.registry.register(
    new CallbackCounter('amender_log_lines_dropped_total', 'Log lines dropped because standard output held AMENDER_LOG_BACKLOG_BYTES unwritten (a log reader not reading).', () => [[{}, stdout.dropped()]]),
  );
  const refusedConnections = capEventLog(logger, 'connections refused', `${config.maxConnections} connections open (AMENDER_MAX_CONNECTIONS)`);
  const evictedConnections = capEventLog(logger, 'idle connections closed', `${config.maxConnections} connections open (AMENDER_MAX_CONNECTIONS): the one idle longest made room for a new one`);
  const refusedRequests = capEventLog(logger, 'requests refused', `${config.maxRequests} requests in flight (AMENDER_MAX_REQUESTS)`);
  const endedSlowRequests = capEventLog(logger, 'slow requests ended', `${config.maxRequests} requests in flight (AMENDER_MAX_REQUESTS): the oldest whose body was still arriving, or whose answer was not taken, made room`);
  amender.metrics.registry.register(
    new CallbackCounter('amender_http_connections_refused_total', 'Connections closed at once because AMENDER_MAX_CONNECTIONS were open and none of them was idle.', () => [[{}, refusedConnections.total()]]),
  );
  amender.metrics.registry.register(
    new CallbackCounter('amender_http_idle_connections_closed_total', 'Idle connections (no request in flight) closed to make room for a new one because AMENDER_MAX_CONNECTIONS were open.', () => [[{}, evictedConnections.total()]]),
  );
  amender.metrics.registry.register(
    new CallbackCounter('amender_http_requests_refused_total', 'Requests answered 503 at once, unread, because AMENDER_MAX_REQUESTS were in flight.', () => [[{}, refusedRequests.total()]]),
  );
  amender.metrics.registry.register(
    new CallbackCounter('amender_http_slow_requests_ended_total', 'Requests whose body was slow to arrive, or whose answer was not taken, ended to make room because AMENDER_MAX_REQUESTS were in flight.', () => [[{}, endedSlowRequests.total()]]),
  );
  const tls = readTls(config);
  const server = await startNodeServer({
    fetch: amender.app.fetch,
    port: config.port,
    host: config.host,
    tls,
    requestTimeoutMs: config.requestTimeoutMs,
    idleTimeoutMs: idleTimeoutMs(config.requestTimeoutMs, config.limits.reviewDeadlineMs),
    headersTimeoutMs: config.headersTimeoutMs,
    maxConnections: config.maxConnections,
    maxRequests: config.maxRequests,
    basePath: config.basePath,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    onError: (err) => logger({ level: 'error', msg: 'unhandled error', error: String((err as Error)?.stack ?? err) }),
    onBadRequest: ({ method, target, message }) => {
      amender.metrics.httpRequests.inc({ route: 'malformed', code: '400' });
      logger({ level: 'info', msg: 'request', method, path: targetPath(target), status: 400, message: `malformed request: ${message}` });
    },
    onConnectionDropped: refusedConnections.record,
    onConnectionEvicted: evictedConnections.record,
    onRequestRefused: refusedRequests.record,
    onSlowRequestEnded: endedSlowRequests.record,
  }).catch((err: Error) => fail(`cannot listen on ${listenAddress(config.host, config.port)}: ${err.message}`));
  // Probes on a port of their own: a main port holding all the connections or requests it may (a flood,
  // clients that hold connections) never makes the pod look dead or unready to the kubelet.
  let probeServer: RunningServer | undefined;
  if (config.probePort !== undefined) {
    const probePort = config.probePort;
    probeServer = await startNodeServer({
      fetch: (request) => {
        const { pathname } = new URL(request.url);
        if ((request.method === 'GET' || request.method === 'HEAD') && (pathname === '/healthz' || pathname === '/readyz')) return amender.app.fetch(request);
        return Response.json(statusBody(404, 'the probe port (AMENDER_PROBE_PORT) answers GET and HEAD /healthz and /readyz only'), { status: 404 });
      },
      port: probePort,
      host: config.host,
      requestTimeoutMs: config.requestTimeoutMs,
      headersTimeoutMs: config.headersTimeoutMs,
      maxConnections: PROBE_PORT_CONNECTIONS,
      maxRequests: PROBE_PORT_CONNECTIONS,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      onError: (err) => logger({ level: 'error', msg: 'unhandled error', error: String((err as Error)?.stack ?? err) }),
    }).catch((err: Error) => fail(`cannot listen on ${listenAddress(config.host, probePort)} (AMENDER_PROBE_PORT): ${err.message}`));
  }
  logger({
    level: 'info',
    msg: 'listening',
    url: server.url,
    ...(probeServer ? { probeUrl: probeServer.url } : {}),
    tls: server.protocol === 'https',
    policySources: config.policySources,
    clusters: sets.clusters.names,
    refreshSeconds: config.refreshSeconds,
    bodyBudgetMb,
    ...(config.tls ? { tlsReloadSeconds: config.tls.reloadSeconds } : {}),
    ...(codeCache ? { codeCache } : {}),
  });
  // Replies are counted in the budget: one its client does not take makes room for a review waiting.
  bodyBudget.relieveWith(() => server.endStalledAnswer());
  markStartup('listening');
  let tlsReloader: TlsReloader | undefined;
  if (config.tls && tls) {
    tlsReloader = createTlsReloader({
      files: config.tls,
      initial: tls,
      apply: server.setTls,
      logger,
      intervalMs: config.tls.reloadSeconds * 1000,
      expiryOf: certificateExpiryReader(),
    });
    registerTlsMetrics(amender.metrics.registry, tlsReloader);
  }
  if (process.argv.includes('--print-example')) process.stderr.write(exampleHint(server.url, server.protocol === 'https', config.policySources));

  // The first load of every set, side by side, after listening: until a set has loaded its routes answer
  // 503 and its /readyz says why; the refreshes keep trying.
  const loading = performance.now();
  sets.start();
  void sets.refreshAll().then(() => {
    if (stopping) return;
    const all = sets.refreshers();
    // The workers build the sets now, in parallel with the wait for a first review, not during it.
    if (pool) {
      pool.prepare('default', sets.default.provider());
      for (const name of sets.clusters.names) pool.prepare(clusterSetName(name), sets.clusters.get(name)!.provider());
    }
    markStartup('policiesReady');
    logger({
      level: 'info',
      msg: 'policy sets loaded',
      ready: all.filter((r) => r.provider().set).map((r) => r.name),
      notReady: all.filter((r) => !r.provider().set).map((r) => r.name),
      durationMs: Math.round(performance.now() - loading),
    });
    // The start's lines are written at once, not with the next batch: whoever watches the log for the
    // server being ready (an operator, a script, a benchmark) sees it when it is.
    stdout.flush();
  });

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    sets.stop();
    tlsReloader?.stop();
    logger({ level: 'info', msg: 'shutting down', signal, inFlight: server.inFlight(), shutdownTimeoutMs: config.shutdownTimeoutMs });
    stdout.flush(); // what happened before the drain is in the log even if the drain is cut short
    // The probe port answers until the main one has drained (/readyz: 503, draining).
    void server.close().then(async () => {
      await probeServer?.close();
      await pool?.close();
      // What the caps did since their last line (at most one per 10 s each) would otherwise go unlogged.
      for (const capLog of [refusedConnections, evictedConnections, refusedRequests, endedSlowRequests]) capLog.flush();
      logger({ level: 'info', msg: 'stopped' });
      process.exit(0);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => {
    if (stopping) return; // the refreshers are stopped and the server is draining
    // Re-read what may have changed: every policy set's sources (the refreshers log what they find) and a
    // rotated certificate.
    logger({ level: 'info', msg: 'reloading', signal: 'SIGHUP' });
    void sets.refreshAll();
    void tlsReloader?.reload('SIGHUP');
  });
}
