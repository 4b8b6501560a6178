/** Runs the built Lambda bundle in a child process (lambda-harness.mjs) and builds payload 2.0 events. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { LAMBDA_BUNDLE, ROOT, type HttpCase, type HttpReply } from './helpers.js';

const HARNESS = fileURLToPath(new URL('./lambda-harness.mjs', import.meta.url));

export interface LambdaResult {
  statusCode: number;
  /** A load balancer's status line (its events only). */
  statusDescription?: string;
  headers?: Record<string, string>;
  /** Payload 1.0 and a load balancer with multi-value headers. */
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
  body?: string;
  isBase64Encoded: boolean;
}

export interface LambdaProcess {
  child: ChildProcess;
  /** The function's log lines (JSON). */
  logs: Record<string, unknown>[];
  invoke(event: unknown, timeoutMs?: number): Promise<LambdaResult>;
  /** What the process wrote on standard error so far. */
  stderr(): string;
  /** What the bundle said of its V8 code cache at init (src/adapters/script-cache.ts). */
  codeCache?: string;
  stop(): Promise<void>;
}

/**
 * Starts a "cold" environment; rejects with the init error when the module fails to load. `node`: the
 * Node binary (default: the one running the tests); `bundle`: the handler module (default: dist/lambda).
 */
export function startLambda(env: Record<string, string>, { node = process.execPath, bundle = LAMBDA_BUNDLE }: { node?: string; bundle?: string } = {}): Promise<LambdaProcess> {
  const child = spawn(node, [HARNESS, bundle], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      logs.push({ text: line });
    }
  });
  const waiting = new Map<number, { resolve: (r: LambdaResult) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the Lambda bundle did not initialize within 20 s: ${stderr}`));
    }, 20_000);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the harness exited: ${stderr}`));
      for (const w of waiting.values()) w.reject(new Error(`the harness exited: ${stderr}`));
    });
    createInterface({ input: child.stdio[3] as Readable }).on('line', (line) => {
      const message = JSON.parse(line) as { ready?: true; codeCache?: string; initError?: string; id?: number; result?: LambdaResult; error?: string };
      if (message.initError !== undefined) {
        clearTimeout(timer);
        reject(new Error(message.initError));
        return;
      }
      if (message.ready) {
        clearTimeout(timer);
        resolve({
          child,
          logs,
          stderr: () => stderr,
          ...(message.codeCache !== undefined ? { codeCache: message.codeCache } : {}),
          invoke(event, timeoutMs = 10_000) {
            const id = nextId++;
            return new Promise<LambdaResult>((res, rej) => {
              const t = setTimeout(() => rej(new Error(`no result within ${timeoutMs + 5000} ms`)), timeoutMs + 5000);
              waiting.set(id, {
                resolve: (r) => {
                  clearTimeout(t);
                  res(r);
                },
                reject: (e) => {
                  clearTimeout(t);
                  rej(e);
                },
              });
              child.stdin!.write(JSON.stringify({ id, event, timeoutMs }) + '\n');
            });
          },
          async stop() {
            child.stdin!.end();
            const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
            await exited;
            clearTimeout(killer);
          },
        });
        return;
      }
      const w = waiting.get(message.id!);
      waiting.delete(message.id!);
      if (message.error !== undefined) w?.reject(new Error(message.error));
      else w?.resolve(message.result!);
    });
  });
}

const FUNCTION_URL_HOST = 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-1.on.aws';

function splitPath(path: string): { rawPath: string; rawQueryString: string } {
  const q = path.indexOf('?');
  return q < 0 ? { rawPath: path, rawQueryString: '' } : { rawPath: path.slice(0, q), rawQueryString: path.slice(q + 1) };
}

function lowerCased(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** A Function URL event (payload 2.0) as Lambda builds it, with the body plain or base64. */
export function functionUrlEvent(c: HttpCase, base64: boolean): Record<string, unknown> {
  const { rawPath, rawQueryString } = splitPath(c.path);
  const body = c.body === undefined ? undefined : base64 ? Buffer.from(c.body, 'utf8').toString('base64') : c.body;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers: {
      'x-amzn-tls-cipher-suite': 'TLS_AES_128_GCM_SHA256',
      'x-amzn-tls-version': 'TLSv1.3',
      'x-amzn-trace-id': 'Root=1-67a1b2c3-0123456789abcdef01234567',
      'x-forwarded-proto': 'https',
      host: FUNCTION_URL_HOST,
      'x-forwarded-port': '443',
      'x-forwarded-for': '203.0.113.10',
      accept: 'application/json, */*',
      'user-agent': 'kube-apiserver-admission',
      ...(c.body !== undefined ? { 'content-length': String(Buffer.byteLength(c.body)) } : {}),
      ...lowerCased(c.headers),
    },
    ...(rawQueryString ? { queryStringParameters: Object.fromEntries(new URLSearchParams(rawQueryString)) } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abcdefghijklmnopqrstuvwxyz012345',
      domainName: FUNCTION_URL_HOST,
      domainPrefix: 'abcdefghijklmnopqrstuvwxyz012345',
      http: { method: c.method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.10', userAgent: 'kube-apiserver-admission' },
      requestId: '8f5b7e1c-2a3d-4e5f-9a8b-7c6d5e4f3a2b',
      routeKey: '$default',
      stage: '$default',
      time: '02/Dec/2026:10:00:00 +0000',
      timeEpoch: 1796205600000,
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: base64 && body !== undefined,
  };
}

/**
 * An API Gateway HTTP API event (payload 2.0) through a `ANY /{proxy+}` route on `stage`; a stage other
 * than `$default` prefixes rawPath and http.path with `/<stage>`, as API Gateway does.
 */
export function httpApiEvent(c: HttpCase, stage: string, base64: boolean): Record<string, unknown> {
  const { rawPath, rawQueryString } = splitPath(c.path);
  const prefixed = stage === '$default' ? rawPath : `/${stage}${rawPath}`;
  const host = 'a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com';
  const body = c.body === undefined ? undefined : base64 ? Buffer.from(c.body, 'utf8').toString('base64') : c.body;
  return {
    version: '2.0',
    routeKey: 'ANY /{proxy+}',
    rawPath: prefixed,
    rawQueryString,
    headers: {
      'content-length': String(c.body === undefined ? 0 : Buffer.byteLength(c.body)),
      host,
      'user-agent': 'kube-apiserver-admission',
      'x-amzn-trace-id': 'Root=1-67a1b2c3-abcdef0123456789abcdef01',
      'x-forwarded-for': '198.51.100.7',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
      ...lowerCased(c.headers),
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      domainName: host,
      domainPrefix: 'a1b2c3d4e5',
      http: { method: c.method, path: prefixed, protocol: 'HTTP/1.1', sourceIp: '198.51.100.7', userAgent: 'kube-apiserver-admission' },
      requestId: 'JKJaXmPLvHcESHA=',
      routeKey: 'ANY /{proxy+}',
      stage,
      time: '02/Dec/2026:10:00:00 +0000',
      timeEpoch: 1796205600000,
    },
    pathParameters: { proxy: rawPath.slice(1) },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: base64 && body !== undefined,
  };
}

/**
 * An API Gateway REST API proxy event (payload format 1.0) through `ANY /{proxy+}` on stage `prod`: headers
 * as the client wrote their names, repeated ones in multiValueHeaders; `path` without the stage, the query
 * decoded.
 */
export function restApiEvent(c: HttpCase, base64: boolean): Record<string, unknown> {
  const { rawPath, rawQueryString } = splitPath(c.path);
  const host = 'b2c3d4e5f6.execute-api.eu-west-1.amazonaws.com';
  const headers: Record<string, string> = { Host: host, 'User-Agent': 'kube-apiserver-admission', 'X-Forwarded-For': '198.51.100.7', 'X-Forwarded-Port': '443', 'X-Forwarded-Proto': 'https', ...c.headers };
  const query = rawQueryString ? Object.fromEntries(new URLSearchParams(rawQueryString)) : null;
  return {
    resource: '/{proxy+}',
    path: rawPath,
    httpMethod: c.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: query && Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
    pathParameters: { proxy: rawPath.slice(1) },
    stageVariables: null,
    requestContext: {
      resourceId: 'abc123',
      resourcePath: '/{proxy+}',
      httpMethod: c.method,
      extendedRequestId: 'JKJaXmPLvHcESHA=',
      requestTime: '02/Dec/2026:10:00:00 +0000',
      path: `/prod${rawPath}`,
      accountId: '123456789012',
      protocol: 'HTTP/1.1',
      stage: 'prod',
      domainPrefix: 'b2c3d4e5f6',
      requestTimeEpoch: 1796205600000,
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      identity: { sourceIp: '198.51.100.7', userAgent: 'kube-apiserver-admission', accessKey: null, accountId: null, caller: null, user: null, userArn: null },
      domainName: host,
      apiId: 'b2c3d4e5f6',
    },
    body: c.body === undefined ? null : base64 ? Buffer.from(c.body, 'utf8').toString('base64') : c.body,
    isBase64Encoded: base64 && c.body !== undefined,
  };
}

/**
 * An Application Load Balancer's event for a Lambda target: header names lower-cased, the query as sent
 * (not decoded); with multi-value headers turned on for the target group, `multiValueHeaders` and
 * `multiValueQueryStringParameters` instead of `headers` and `queryStringParameters`.
 */
export function albEvent(c: HttpCase, multiValue: boolean, base64: boolean): Record<string, unknown> {
  const { rawPath, rawQueryString } = splitPath(c.path);
  const headers: Record<string, string> = {
    host: 'internal-amender-123456789.eu-west-1.elb.amazonaws.com',
    'user-agent': 'kube-apiserver-admission',
    'x-amzn-trace-id': 'Root=1-67a1b2c3-0123456789abcdef01234567',
    'x-forwarded-for': '10.0.1.23',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
    ...(c.body !== undefined ? { 'content-length': String(Buffer.byteLength(c.body)) } : {}),
    ...lowerCased(c.headers),
  };
  const query: [string, string][] = rawQueryString ? rawQueryString.split('&').map((pair) => [pair.split('=')[0], pair.split('=').slice(1).join('=')]) : [];
  return {
    requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/amender/0123456789abcdef' } },
    httpMethod: c.method,
    path: rawPath,
    ...(multiValue
      ? { multiValueQueryStringParameters: Object.fromEntries(query.map(([k, v]) => [k, [v]])), multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])) }
      : { queryStringParameters: Object.fromEntries(query), headers }),
    body: c.body === undefined ? '' : base64 ? Buffer.from(c.body, 'utf8').toString('base64') : c.body,
    isBase64Encoded: base64 && c.body !== undefined,
  };
}

/** A v2 result read like an HTTP reply (base64 bodies decoded); a 1.0 or load balancer result too. */
export function resultReply(result: LambdaResult): HttpReply {
  const text = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  const multi = Object.fromEntries(Object.entries(result.multiValueHeaders ?? {}).map(([k, v]) => [k, v.join(', ')]));
  const contentType = Object.entries({ ...result.headers, ...multi }).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? null;
  return { status: result.statusCode, contentType, body };
}
