/**
 * A misspelt setting variable (AMENDER_REFERSH_SECONDS) left its setting at the default without a word,
 * where the config file refuses a key it does not know: the server now logs a warning naming it, with the
 * nearest known name, and starts all the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unknownVariableWarnings } from '../../src/adapters/node-config.js';
import { unknownVariables } from '../../src/settings/index.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from './built.js';
import { startBundle, type Running } from './bundle.js';

describe('unknownVariables', () => {
  it('names each variable of the prefix no setting reads, with the nearest known name when one is near', () => {
    const env = {
      AMENDER_REFERSH_SECONDS: '5',
      AMENDER_WORKERS: '2',
      AMENDER_MAX_BODY_BYTE: '3',
      AMENDER_SOMETHING_ELSE: 'x',
      AMENDER_EMPTY: '',
      OTHER_VARIABLE: 'y',
    };
    expect(unknownVariables(env, ['AMENDER_REFRESH_SECONDS', 'AMENDER_WORKERS', 'AMENDER_MAX_BODY_BYTES'], 'AMENDER_')).toEqual([
      'AMENDER_MAX_BODY_BYTE is set but is no setting of this server: ignored (did you mean AMENDER_MAX_BODY_BYTES?)',
      'AMENDER_REFERSH_SECONDS is set but is no setting of this server: ignored (did you mean AMENDER_REFRESH_SECONDS?)',
      'AMENDER_SOMETHING_ELSE is set but is no setting of this server: ignored',
    ]);
  });

  it('reads patterns with <NAME> as any cluster name, and suggests with the variable’s own name', () => {
    const known = ['AMENDER_CLUSTER_<NAME>_SOURCES', 'AMENDER_CLUSTER_<NAME>_REFRESH_SECONDS'];
    const env = { AMENDER_CLUSTER_PROD_EU_SOURCES: 'a', AMENDER_CLUSTER_PROD_EU_SOURCE: 'b', AMENDER_CLUSTER_X_REFRESH_SECOND: '3' };
    expect(unknownVariables(env, known, 'AMENDER_')).toEqual([
      'AMENDER_CLUSTER_PROD_EU_SOURCE is set but is no setting of this server: ignored (did you mean AMENDER_CLUSTER_PROD_EU_SOURCES?)',
      'AMENDER_CLUSTER_X_REFRESH_SECOND is set but is no setting of this server: ignored (did you mean AMENDER_CLUSTER_X_REFRESH_SECONDS?)',
    ]);
  });

  it('names a variable written in the wrong case, which the environment does not forgive', () => {
    expect(unknownVariables({ amender_workers: '2', Amender_Log_Level: 'debug' }, ['AMENDER_WORKERS', 'AMENDER_LOG_LEVEL'], 'AMENDER_')).toEqual([
      'Amender_Log_Level is set but is no setting of this server: ignored (did you mean AMENDER_LOG_LEVEL?)',
      'amender_workers is set but is no setting of this server: ignored (did you mean AMENDER_WORKERS?)',
    ]);
  });

  it('knows every variable the Node server reads, and the build’s', () => {
    expect(unknownVariableWarnings({ AMENDER_WORKER_HEAP_MB: '64', AMENDER_S3_ENDPOINT: 'http://127.0.0.1:1', AMENDER_CLUSTER_PROD_SECRET_HASHES: 'x', AMENDER_WRITE_CODE_CACHE: 'main', AMENDER_CONFIG: 'f' })).toEqual([]);
    expect(unknownVariableWarnings({ AMENDER_WORKER_HEAP: '64' })).toEqual(['AMENDER_WORKER_HEAP is set but is no setting of this server: ignored (did you mean AMENDER_WORKER_HEAP_MB?)']);
  });
});

describe('the images this project builds', () => {
  it('set no variable the server would warn of (the Knative Dockerfile sets one for its build step)', () => {
    const dockerfile = readFileSync(join(ROOT, 'infra/knative/Dockerfile'), 'utf8');
    const env: Record<string, string> = {};
    for (const [, line] of dockerfile.matchAll(/^ENV\s+(.*)$/gm)) for (const [, name, value] of line.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S+)/g)) env[name] = value;
    expect(Object.keys(env)).toContain('AMENDER_COMPILE_CACHE_NODE');
    expect(unknownVariableWarnings(env)).toEqual([]);
  });
});

describe('the built server started with a misspelt setting', () => {
  let server: Running;
  beforeAll(async () => {
    ensureBuilt();
    server = await startBundle({ AMENDER_WORKERS: '0', AMENDER_REFERSH_SECONDS: '5' });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('starts, and logs a warning naming it and the setting meant', async () => {
    const warning = server.lines.find((l) => l.msg === 'unknown setting');
    expect(warning).toMatchObject({
      level: 'warn',
      warning: 'AMENDER_REFERSH_SECONDS is set but is no setting of this server: ignored (did you mean AMENDER_REFRESH_SECONDS?)',
    });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
