import { describe, expect, it, vi } from 'vitest';
import { ConfigError, DEFAULT_PORT, ENVIRONMENT_VARIABLES, readNodeConfig } from '../../src/adapters/node-config.js';
import { defaultBodyBudgetMb, idleTimeoutMs } from '../../src/adapters/node-defaults.js';
import { readServerlessConfig, ServerlessConfigError } from '../../src/adapters/serverless-config.js';
import { Prng } from '../reliability/helpers/prng.js';

const HASH = `sha256:${'ab'.repeat(32)}`;
const OTHER_HASH = `sha256:${'cd'.repeat(32)}`;

function problems(env: Record<string, string>, file?: string): string[] {
  try {
    readNodeConfig(env, file);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('readNodeConfig', () => {
  it('has defaults for everything', () => {
    const c = readNodeConfig({});
    expect(c).toMatchObject({ port: DEFAULT_PORT, policySources: ['bundled'], logLevel: 'info' });
    // Every address (dual-stack `::` where the host has IPv6): 0.0.0.0 is unreachable in an IPv6-only cluster.
    expect(c.host).toBeUndefined();
    expect(c.limits.maxBodyBytes).toBe(8 * 1024 * 1024);
    expect(c.tls).toBeUndefined();
  });

  it('reads environment variables', () => {
    const c = readNodeConfig({
      PORT: '9443',
      AMENDER_HOST: '127.0.0.1',
      AMENDER_POLICY_SOURCES: 'file:///etc/amender, ./more ,',
      AMENDER_TLS_CERT_FILE: '/tls/tls.crt',
      AMENDER_TLS_KEY_FILE: '/tls/tls.key',
      AMENDER_MAX_BODY_BYTES: '1024',
      AMENDER_BODY_TIMEOUT_MS: '500',
      AMENDER_LOG_LEVEL: 'debug',
      AMENDER_SHUTDOWN_TIMEOUT_MS: '1000',
    });
    expect(c).toMatchObject({
      port: 9443,
      host: '127.0.0.1',
      policySources: ['file:///etc/amender', './more'],
      tls: { certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' },
      logLevel: 'debug',
      shutdownTimeoutMs: 1000,
    });
    expect(c.limits).toMatchObject({ maxBodyBytes: 1024, bodyTimeoutMs: 500 });
  });

  it('reads a probe port, none by default, one that differs from PORT', () => {
    expect(readNodeConfig({})).not.toHaveProperty('probePort');
    expect(readNodeConfig({ AMENDER_PROBE_PORT: '8081' }).probePort).toBe(8081);
    expect(readNodeConfig({}, 'probePort: 9090\n').probePort).toBe(9090);
    expect(() => readNodeConfig({ PORT: '8080', AMENDER_PROBE_PORT: '8080' })).toThrow(/AMENDER_PROBE_PORT: must differ from PORT \(8080\)/);
    expect(() => readNodeConfig({ AMENDER_PROBE_PORT: '70000' })).toThrow(/AMENDER_PROBE_PORT: expected an integer from 0 to 65535/);
    expect(readNodeConfig({ PORT: '0', AMENDER_PROBE_PORT: '0' }).probePort).toBe(0);
  });

  it('reads the connection settings: header timeout within the request timeout, a connection cap', () => {
    expect(readNodeConfig({})).toMatchObject({ requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, maxConnections: 1024, shutdownTimeoutMs: 20_000 });
    expect(readNodeConfig({ AMENDER_HEADERS_TIMEOUT_MS: '2000', AMENDER_MAX_CONNECTIONS: '16' })).toMatchObject({ headersTimeoutMs: 2000, maxConnections: 16 });
    expect(readNodeConfig({}).maxRequests).toBe(1024);
    expect(readNodeConfig({ AMENDER_MAX_REQUESTS: '64' }).maxRequests).toBe(64);
    expect(readNodeConfig({}, 'maxRequests: 32\n').maxRequests).toBe(32);
    expect(() => readNodeConfig({ AMENDER_MAX_REQUESTS: '0' })).toThrow(/AMENDER_MAX_REQUESTS: expected an integer of at least 1, got "0"/);
    // Without a header timeout of its own, a shorter request timeout bounds the headers too.
    expect(readNodeConfig({ AMENDER_REQUEST_TIMEOUT_MS: '5000' })).toMatchObject({ requestTimeoutMs: 5000, headersTimeoutMs: 5000 });
    expect(readNodeConfig({}, 'headersTimeoutMs: 3000\nmaxConnections: 8\n')).toMatchObject({ headersTimeoutMs: 3000, maxConnections: 8 });
    expect(problems({ AMENDER_REQUEST_TIMEOUT_MS: '5000', AMENDER_HEADERS_TIMEOUT_MS: '6000', AMENDER_MAX_CONNECTIONS: '0' })).toEqual([
      'AMENDER_MAX_CONNECTIONS: expected an integer of at least 1, got "0"',
      'AMENDER_HEADERS_TIMEOUT_MS: at most AMENDER_REQUEST_TIMEOUT_MS (5000), got 6000',
    ]);
  });

  it('looks at the TLS files for a rotation every 10 s unless told otherwise (0: only on SIGHUP)', () => {
    const pair = { AMENDER_TLS_CERT_FILE: '/c', AMENDER_TLS_KEY_FILE: '/k' };
    expect(readNodeConfig(pair).tls).toEqual({ certFile: '/c', keyFile: '/k', reloadSeconds: 10 });
    expect(readNodeConfig({ ...pair, AMENDER_TLS_RELOAD_SECONDS: '0' }).tls?.reloadSeconds).toBe(0);
    expect(readNodeConfig(pair, 'tls: {reloadSeconds: 30}\n').tls?.reloadSeconds).toBe(30);
    expect(problems({ ...pair, AMENDER_TLS_RELOAD_SECONDS: '-1' })).toEqual(['AMENDER_TLS_RELOAD_SECONDS: expected whole seconds from 0 to 86400, got "-1"']);
  });

  it('bounds the log lines standard output may hold unwritten: 16 MiB unless told, at least 64 KiB', () => {
    expect(readNodeConfig({}).logBacklogBytes).toBe(16 * 1024 * 1024);
    expect(readNodeConfig({ AMENDER_LOG_BACKLOG_BYTES: '1048576' }).logBacklogBytes).toBe(1048576);
    expect(readNodeConfig({}, 'logBacklogBytes: 65536\n').logBacklogBytes).toBe(65536);
    expect(problems({ AMENDER_LOG_BACKLOG_BYTES: '4096' })).toEqual(['AMENDER_LOG_BACKLOG_BYTES: expected an integer of at least 65536, got "4096"']);
  });

  it('reads the body budget, or leaves it to the memory limit', () => {
    expect(readNodeConfig({}).bodyBudgetMb).toBeUndefined();
    expect(readNodeConfig({ AMENDER_BODY_BUDGET_MB: '48' }).bodyBudgetMb).toBe(48);
    expect(readNodeConfig({}, 'bodyBudgetMb: 96\n').bodyBudgetMb).toBe(96);
    expect(problems({ AMENDER_BODY_BUDGET_MB: '0' })).toEqual(['AMENDER_BODY_BUDGET_MB: expected an integer of at least 1, got "0"']);
    const MiB = 2 ** 20;
    expect(defaultBodyBudgetMb(undefined)).toBe(256);
    expect(defaultBodyBudgetMb(512 * MiB)).toBe(32);
    expect(defaultBodyBudgetMb(128 * MiB)).toBe(16);
    expect(defaultBodyBudgetMb(64 * 2 ** 30)).toBe(256);
  });

  it('reads a base path (AMENDER_BASE_PATH or the file), none by default, and refuses one that is no path prefix', () => {
    expect(readNodeConfig({}).basePath).toBeUndefined();
    expect(readNodeConfig({ AMENDER_BASE_PATH: '/amender' }).basePath).toBe('/amender');
    expect(readNodeConfig({}, 'basePath: /hooks/amender').basePath).toBe('/hooks/amender');
    expect(readNodeConfig({ AMENDER_BASE_PATH: '/a' }, 'basePath: /b').basePath).toBe('/a');
    for (const bad of ['amender', '/amender/', '/', '/a/../b', '/a%2Fb']) {
      expect(problems({ AMENDER_BASE_PATH: bad })).toEqual([expect.stringMatching(/^AMENDER_BASE_PATH: expected a path prefix/)]);
    }
  });

  it('never takes a connection waiting for its answer for an idle one', () => {
    expect(idleTimeoutMs(30_000, 8000)).toBe(30_000);
    expect(idleTimeoutMs(5000, 8000)).toBe(13_000);
  });

  it('reads a YAML config file, and a variable wins over it', () => {
    const file = 'port: 7000\nlogLevel: warn\npolicySources: [file:///a, file:///b]\nlimits:\n  maxBodyBytes: 2048\ntls:\n  certFile: c\n  keyFile: k\n';
    const c = readNodeConfig({ PORT: '7001' }, file);
    expect(c).toMatchObject({ port: 7001, logLevel: 'warn', policySources: ['file:///a', 'file:///b'], tls: { certFile: 'c', keyFile: 'k' } });
    expect(c.limits.maxBodyBytes).toBe(2048);
  });

  it('reads a config file with a tag it does not know without a Node warning on standard error', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      expect(readNodeConfig({}, 'port: !!map 7000\nlogLevel: !<constructor> warn\n')).toMatchObject({ port: 7000, logLevel: 'warn' });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('reports every problem at once, naming where it came from', () => {
    expect(problems({ PORT: 'http', AMENDER_LOG_LEVEL: 'loud', AMENDER_TLS_CERT_FILE: '/c', AMENDER_MAX_BODY_BYTES: '0' })).toEqual([
      'PORT: expected an integer from 0 to 65535, got "http"',
      'AMENDER_MAX_BODY_BYTES: expected an integer of at least 1, got "0"',
      'AMENDER_LOG_LEVEL: expected debug, info, warn or error, got "loud"',
      'AMENDER_TLS_CERT_FILE and AMENDER_TLS_KEY_FILE must be given together (HTTPS needs both)',
    ]);
    expect(problems({}, 'prot: 1\nlimits: {maxBodyBytes: big}\n')).toEqual([
      expect.stringMatching(/^config file: unknown key prot \(known: /),
      'config file key limits.maxBodyBytes: expected an integer of at least 1, got "big"',
    ]);
    expect(problems({}, '[1, 2]')).toEqual(['config file: expected a mapping of settings']);
    expect(problems({}, 'port: [1\n')[0]).toMatch(/^config file: /);
    expect(problems({}, 'port: 1\n---\nhost: 127.0.0.1\n')).toEqual(['config file: holds several YAML documents (--- between them); it must be one mapping of settings']);
    expect(problems({ AMENDER_MAX_JSON_DEPTH: '5000' })).toEqual(['AMENDER_MAX_JSON_DEPTH: at most 1000, got 5000']);
    // listen() would look it up as a host name: "getaddrinfo ENOTFOUND [::1]".
    expect(problems({ AMENDER_HOST: '[::1]' })).toEqual(['AMENDER_HOST: an IPv6 address is written without brackets here: ::1']);
    expect(readNodeConfig({ AMENDER_HOST: '::1' }).host).toBe('::1');
  });

  it('quotes a long value cut, with its length, so that a problem stays one readable line', () => {
    const long = `${'9'.repeat(10)}x${'y'.repeat(9989)}`;
    expect(problems({ PORT: long, AMENDER_LOG_LEVEL: 'z'.repeat(100) })).toEqual([
      `PORT: expected an integer from 0 to 65535, got ${JSON.stringify(long.slice(0, 100))}… (10000 characters)`,
      `AMENDER_LOG_LEVEL: expected debug, info, warn or error, got "${'z'.repeat(100)}"`,
    ]);
    const items = Array.from({ length: 200 }, (_, i) => `"${i}"`).join(', ');
    expect(problems({}, `limits: {maxBodyBytes: [${items}]}\n`)).toEqual([expect.stringMatching(/^config file key limits\.maxBodyBytes: expected an integer of at least 1, got \["0","1","2",.*… \(200 items\)$/)]);
    // An unknown key too, before the list of the known ones.
    const [unknown] = problems({}, `? ${'k'.repeat(10_000)}\n: 1\n`); // an explicit key: YAML bounds implicit ones at 1024
    expect(unknown).toMatch(new RegExp(`^config file: unknown key "${'k'.repeat(100)}"… \\(10000 characters\\) \\(known: port, host, `));
    expect(unknown.length).toBeLessThan(700);
  });

  it('reads the refresh interval and the clusters from the environment and the file, a variable winning per field', () => {
    const file = `refreshSeconds: 300\nclusters:\n  prod-eu:\n    sources: [s3://policies/prod-eu, bundled]\n    secretHashes: ['${HASH}']\n    refreshSeconds: 30\n  staging:\n    sources: file:///etc/staging\n    secretHashes: ['${HASH}']\n`;
    const c = readNodeConfig({ AMENDER_CLUSTERS: 'prod-eu,dev', AMENDER_CLUSTER_PROD_EU_SECRET_HASHES: `${HASH},${OTHER_HASH}`, AMENDER_CLUSTER_DEV_SOURCES: 'bundled', AMENDER_CLUSTER_DEV_SECRET_HASHES: HASH }, file);
    expect(c.refreshSeconds).toBe(300);
    expect(c.clusters).toEqual([
      { name: 'dev', sources: ['bundled'], secretHashes: [HASH] },
      { name: 'prod-eu', sources: ['s3://policies/prod-eu', 'bundled'], secretHashes: [HASH, OTHER_HASH], refreshSeconds: 30 },
      { name: 'staging', sources: ['file:///etc/staging'], secretHashes: [HASH] },
    ]);
    expect(readNodeConfig({ AMENDER_REFRESH_SECONDS: '0' }, file).refreshSeconds).toBe(0);
    expect(readNodeConfig({}).refreshSeconds).toBe(60);
    expect(readNodeConfig({}).clusters).toEqual([]);
  });

  it('reports problems of the refresh interval and the clusters with the others', () => {
    expect(problems({ AMENDER_REFRESH_SECONDS: '-1', PORT: 'x', AMENDER_CLUSTERS: 'Prod' })).toEqual([
      'PORT: expected an integer from 0 to 65535, got "x"',
      'AMENDER_REFRESH_SECONDS: expected whole seconds from 0 to 86400, got "-1"',
      expect.stringMatching(/^cluster "Prod": a name is 1-63 lowercase letters/),
    ]);
    expect(problems({}, 'clusters:\n  a:\n    sources: [bundled]\n    secretHashes: [my-password]\n')).toEqual([
      'cluster a: secret hash #1 is not of the form sha256:<64 lowercase hex digits> (store the hash of the secret, never the secret)',
    ]);
    expect(problems({}, 'clusters: [a]\nrefreshSeconds: 100000\n')).toEqual([
      'config file key refreshSeconds: expected whole seconds from 0 to 86400, got 100000',
      'config file key clusters: expected a mapping of cluster name to settings',
    ]);
  });
});

describe('one settings reader for every platform', () => {
  it('reads the common settings on Node, Lambda and Workers with the same values and messages', () => {
    const env = {
      AMENDER_POLICY_SOURCES: ' ,',
      AMENDER_REFRESH_SECONDS: 'soon',
      AMENDER_MAX_BODY_BYTES: '0',
      AMENDER_MAX_JSON_DEPTH: '5000',
      AMENDER_LOG_LEVEL: 'loud',
      AMENDER_CLUSTERS: 'Prod',
    };
    let serverless: string[] = [];
    try {
      readServerlessConfig(env);
    } catch (err) {
      if (!(err instanceof ServerlessConfigError)) throw err;
      serverless = err.problems;
    }
    expect(serverless).toEqual(problems(env));
    expect(serverless).toEqual([
      'AMENDER_POLICY_SOURCES: at least one source is needed (or leave it unset for bundled)',
      'AMENDER_REFRESH_SECONDS: expected whole seconds from 0 to 86400, got "soon"',
      'AMENDER_MAX_BODY_BYTES: expected an integer of at least 1, got "0"',
      'AMENDER_MAX_JSON_DEPTH: at most 1000, got 5000',
      'AMENDER_LOG_LEVEL: expected debug, info, warn or error, got "loud"',
      expect.stringMatching(/^cluster "Prod": a name is 1-63 lowercase letters/),
    ]);
    const good = { AMENDER_POLICY_SOURCES: 'bundled,file:///x', AMENDER_REFRESH_SECONDS: '5', AMENDER_REVIEW_DEADLINE_MS: '3000', AMENDER_LOG_LEVEL: 'warn', AMENDER_BASE_PATH: '/amender' };
    const { refreshWaitMs: _wait, bodyBudgetMb: _budget, ...common } = readServerlessConfig(good);
    expect(common.basePath).toBe('/amender');
    expect(readNodeConfig(good)).toMatchObject(common);
  });

  it('takes millisecond settings up to a day, which Node timers hold (a longer one would fire at once)', () => {
    const env = { AMENDER_BODY_TIMEOUT_MS: '86400000', AMENDER_REVIEW_DEADLINE_MS: '86400000' };
    expect(readNodeConfig(env).limits).toMatchObject({ bodyTimeoutMs: 86_400_000, reviewDeadlineMs: 86_400_000 });
    expect(readServerlessConfig({ ...env, AMENDER_REFRESH_WAIT_MS: '86400000' })).toMatchObject({ refreshWaitMs: 86_400_000 });
    const tooLong = { AMENDER_BODY_TIMEOUT_MS: '3000000000', AMENDER_REVIEW_DEADLINE_MS: '86400001' };
    expect(problems(tooLong)).toEqual([
      'AMENDER_BODY_TIMEOUT_MS: expected whole milliseconds from 1 to 86400000 (a day), got "3000000000"',
      'AMENDER_REVIEW_DEADLINE_MS: expected whole milliseconds from 1 to 86400000 (a day), got "86400001"',
    ]);
    expect(problems({}, 'limits: {reviewDeadlineMs: 3000000000}')).toEqual(['config file key limits.reviewDeadlineMs: expected whole milliseconds from 1 to 86400000 (a day), got 3000000000']);
    expect(() => readServerlessConfig({ ...tooLong, AMENDER_REFRESH_WAIT_MS: '3000000000' })).toThrow(
      /AMENDER_BODY_TIMEOUT_MS: .*\n.*AMENDER_REVIEW_DEADLINE_MS: .*\n.*AMENDER_REFRESH_WAIT_MS: expected whole milliseconds from 0 to 86400000 \(a day\), got "3000000000"/,
    );
  });

  it("takes the Node server's own timeouts up to a day and the TLS check interval up to a day of seconds", () => {
    const day = { AMENDER_REQUEST_TIMEOUT_MS: '86400000', AMENDER_HEADERS_TIMEOUT_MS: '86400000', AMENDER_SHUTDOWN_TIMEOUT_MS: '86400000', AMENDER_TLS_RELOAD_SECONDS: '86400' };
    expect(readNodeConfig(day)).toMatchObject({ requestTimeoutMs: 86_400_000, headersTimeoutMs: 86_400_000, shutdownTimeoutMs: 86_400_000 });
    // Past 2^31 - 1 ms a Node timer fires after 1 ms: the drain would cut every connection at once.
    expect(problems({ AMENDER_REQUEST_TIMEOUT_MS: '3000000000', AMENDER_HEADERS_TIMEOUT_MS: '86400001', AMENDER_SHUTDOWN_TIMEOUT_MS: '3000000000', AMENDER_TLS_RELOAD_SECONDS: '3000000' })).toEqual([
      'AMENDER_REQUEST_TIMEOUT_MS: expected whole milliseconds from 1 to 86400000 (a day), got "3000000000"',
      'AMENDER_HEADERS_TIMEOUT_MS: expected whole milliseconds from 1 to 86400000 (a day), got "86400001"',
      'AMENDER_SHUTDOWN_TIMEOUT_MS: expected whole milliseconds from 1 to 86400000 (a day), got "3000000000"',
      'AMENDER_TLS_RELOAD_SECONDS: expected whole seconds from 0 to 86400, got "3000000"',
    ]);
  });

  it("reads the serverless platforms' own settings: Lambda's refresh wait, Workers' body budget", () => {
    expect(readServerlessConfig({})).toMatchObject({ refreshWaitMs: 2000, bodyBudgetMb: undefined });
    expect(readServerlessConfig({ AMENDER_REFRESH_WAIT_MS: '0', AMENDER_BODY_BUDGET_MB: '4' })).toMatchObject({ refreshWaitMs: 0, bodyBudgetMb: 4 });
    expect(() => readServerlessConfig({ AMENDER_BODY_BUDGET_MB: '0' })).toThrow('AMENDER_BODY_BUDGET_MB: expected an integer of at least 1, got "0"');
  });
});

/** Values an operator may mistype into any variable: numbers in other forms, huge, empty, odd characters, other settings' values. */
const ODD_VALUES = ['', ' ', '0', '-0', '-1', '1e3', '0x10', ' 5', '5.5', 'Infinity', 'NaN', '9007199254740993', '1'.repeat(400), 'yes', 'TRUE', 'null', '__proto__', 'constructor', 'bundled', 's3://', 's3://b/p', 'file://', 'http://x', 'x'.repeat(10000), '\u0000', '\ud800', 'debug', 'Fail', 'a,b', ',', 'a=b', '{}', '[]', HASH, 'sha256:xyz', '65536', '100000000000'];

describe('any environment, seeded', () => {
  it('gives a configuration or a ConfigError whose every line is short, on Node and serverless alike', () => {
    const rng = new Prng(0xc0f1);
    const names = [...ENVIRONMENT_VARIABLES, 'AMENDER_CLUSTER_A_SOURCES', 'AMENDER_CLUSTER_A_SECRET_HASHES', 'AMENDER_CLUSTER___PROTO___SOURCES'];
    const outcomes = { read: 0, refused: 0 };
    for (let i = 0; i < 3000; i++) {
      const env: Record<string, string> = {};
      for (let n = 1 + rng.int(4); n > 0; n--) env[names[rng.int(names.length)]] = ODD_VALUES[rng.int(ODD_VALUES.length)];
      const shown = JSON.stringify(env, (_, v) => (typeof v === 'string' && v.length > 50 ? `${v.slice(0, 50)}…` : v));
      for (const read of [() => readNodeConfig(env), () => readServerlessConfig(env)]) {
        try {
          read();
          outcomes.read++;
        } catch (err) {
          expect(err instanceof ConfigError || err instanceof ServerlessConfigError, `${shown}: ${String(err)}`).toBe(true);
          for (const line of (err as Error).message.split('\n')) expect(line.length, shown).toBeLessThan(400);
          outcomes.refused++;
        }
      }
    }
    expect(outcomes.read).toBeGreaterThan(300);
    expect(outcomes.refused).toBeGreaterThan(300);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** A config file as an operator writes one, every kind of key the Node server reads. */
const CONFIG_FILE = `port: 7000
logLevel: warn
policySources: [file:///a, s3://bucket/prefix]
refreshSeconds: 30
limits:
  maxBodyBytes: 2048
tls:
  certFile: /tls/c
  keyFile: /tls/k
clusters:
  prod-eu:
    sources: [file:///p]
    secretHashes: [${HASH}]
`;
/** What a damaged config file gets inserted: YAML's syntax, tags, aliases, odd values. */
const FILE_INSERTS = ['\t', ': ', '- ', '{', '}', '[', ']', '&a ', '*a', '!!binary ', '!<constructor> ', '!!map ', '<<: *a\n', '---\n', '%YAML 1.1\n', '"', "'", '\n', '  ', '?', '#', '__proto__: ', 'constructor: ', '\u0000', '\ufeff', '1e999', '-1', 'null', '~'];

describe('any config file, seeded', () => {
  it('gives a configuration or a ConfigError whose every line is short, never another error', () => {
    const rng = new Prng(0xf11e);
    const outcomes = { read: 0, refused: 0 };
    for (let i = 0; i < 3000; i++) {
      let file = CONFIG_FILE;
      for (let n = 1 + rng.int(3); n > 0; n--) {
        const at = rng.int(file.length + 1);
        const kind = rng.int(3);
        if (kind === 0) file = file.slice(0, at) + rng.pick(FILE_INSERTS) + file.slice(at);
        else if (kind === 1) file = file.slice(0, at) + file.slice(at + 1 + rng.int(6));
        else file = file.slice(0, at) + file.slice(at, at + 1 + rng.int(30)).repeat(2) + file.slice(at);
      }
      const shown = `case ${i}: ${JSON.stringify(file)}`;
      try {
        readNodeConfig({}, file);
        outcomes.read++;
      } catch (err) {
        expect(err instanceof ConfigError, `${shown}: ${String(err)}`).toBe(true);
        // The longest: an unknown key (cut at 100 characters) with the list of the known ones.
        for (const line of (err as Error).message.split('\n')) expect(line.length, shown).toBeLessThan(600);
        expect((err as Error).message, shown).not.toMatch(/is not a function|Cannot read prop|of undefined|of null/);
        outcomes.refused++;
      }
    }
    expect(outcomes.read).toBeGreaterThan(75); // most damage breaks a file this short
    expect(outcomes.refused).toBeGreaterThan(300);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

