/**
 * Entry of the Node server bundle (dist/node/main.js): Knative, a container, or `npm start`.
 * Configuration from the environment (see README "Configuration"); SIGTERM/SIGINT drain and exit;
 * SIGHUP reloads the policy sources.
 */
import { readFileSync } from 'node:fs';
import { createApp, jsonLineLogger, type Logger } from '../server/index.js';
import { startNodeServer } from './node.js';
import { CONFIG_FILE_VARIABLE, ConfigError, readNodeConfig, type NodeConfig } from './node-config.js';
import { FilePolicySources } from './node-policies.js';
import { exampleHint } from './node-hint.js';

function fail(message: string): never {
  process.stderr.write(`amender: ${message}\n`);
  process.exit(2);
}

function readConfig(): NodeConfig {
  const file = process.env[CONFIG_FILE_VARIABLE];
  let text: string | undefined;
  if (file) {
    try {
      text = readFileSync(file, 'utf8');
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

function readTls(config: NodeConfig) {
  if (!config.tls) return undefined;
  try {
    return { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) };
  } catch (err) {
    fail(`cannot read the TLS certificate or key: ${(err as Error).message}`);
  }
}

function logLoad(logger: Logger, sources: FilePolicySources): void {
  const state = sources.provider();
  for (const error of state.sourceErrors) logger({ level: 'error', msg: 'policy source error', source: state.source, error });
  if (!state.set) return;
  for (const problem of state.set.problems) logger({ level: 'warn', msg: 'policy problem', ...problem });
  logger({ level: 'info', msg: 'policy set loaded', source: state.source, counts: state.set.counts, problems: state.set.problems.length });
}

const config = readConfig();
const logger = jsonLineLogger((line) => process.stdout.write(line), { minLevel: config.logLevel });
const sources = new FilePolicySources(config.policySources);
await sources.reload();
logLoad(logger, sources);

const { app } = createApp({ policies: sources.provider, limits: config.limits, logger });
const server = await startNodeServer({
  fetch: app.fetch,
  port: config.port,
  host: config.host,
  tls: readTls(config),
  requestTimeoutMs: config.requestTimeoutMs,
  shutdownTimeoutMs: config.shutdownTimeoutMs,
  onError: (err) => logger({ level: 'error', msg: 'unhandled error', error: String((err as Error)?.stack ?? err) }),
}).catch((err: Error) => fail(`cannot listen on ${config.host}:${config.port}: ${err.message}`));
logger({ level: 'info', msg: 'listening', url: server.url, tls: server.protocol === 'https' });
if (process.argv.includes('--print-example')) process.stderr.write(exampleHint(server.url, server.protocol === 'https'));

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger({ level: 'info', msg: 'shutting down', signal, inFlight: server.inFlight() });
  void server.close().then(() => {
    logger({ level: 'info', msg: 'stopped' });
    process.exit(0);
  });
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGHUP', () => {
  // Re-read what may have changed on disk: the policy sources and a rotated certificate.
  void sources.reload().then(() => logLoad(logger, sources));
  if (config.tls) {
    try {
      server.setTls({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) });
      logger({ level: 'info', msg: 'tls certificate reloaded', certFile: config.tls.certFile });
    } catch (err) {
      logger({ level: 'error', msg: 'tls certificate reload failed; the previous one stays', error: (err as Error).message });
    }
  }
});
