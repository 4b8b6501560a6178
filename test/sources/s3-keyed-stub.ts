/**
 * A small S3-protocol stub on 127.0.0.1 whose GetObject answers a status of its own for chosen keys
 * (`refuse`: 403 AccessDenied, 404 NoSuchKey for a key the listing still shows, 400 an SSE-C object read
 * without its key, 500 InternalError) or whose body stops halfway (`cut`), or that keeps no ETag (`noEtag`), beside ListObjectsV2 (with ETags and sizes) and GetObject with If-None-Match for the others: bucket `b`, path style.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createS3Client } from '../../src/sources/node/index.js';

export interface KeyedStub {
  client: S3Client;
  objects: Map<string, string>;
  /** Key → the status its GetObject answers whatever it holds. */
  refuse: Map<string, RefusalStatus>;
  /**
   * Key → how its body, sent with its full Content-Length, stops halfway: `truncate` closes the connection,
   * `reset` resets it (TCP RST), `stall` sends nothing more.
   */
  cut: Map<string, 'truncate' | 'reset' | 'stall'>;
  /** Keys listed and served without an ETag (a store that keeps none for them). */
  noEtag: Set<string>;
  /** GetObject requests seen, by key. */
  gets: string[];
}

const etagOf = (body: string) => `"${createHash('md5').update(body).digest('hex')}"`;
const ERRORS = {
  400: ['InvalidRequest', 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.'],
  403: ['AccessDenied', 'Access Denied'],
  404: ['NoSuchKey', 'The specified key does not exist.'],
  500: ['InternalError', 'We encountered an internal error. Please try again.'],
} as const;
export type RefusalStatus = keyof typeof ERRORS;

/** Call at the top of a test file: the stub, started before its tests, emptied before each, closed after. */
export function useKeyedStub(): () => KeyedStub {
  const objects = new Map<string, string>();
  const refuse = new Map<string, RefusalStatus>();
  const cut = new Map<string, 'truncate' | 'reset' | 'stall'>();
  const noEtag = new Set<string>();
  const gets: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://store');
    const path = decodeURIComponent(url.pathname).replace(/^\/+/, '');
    if (path === 'b' || path === 'b/') {
      const contents = [...objects].sort().map(([key, body]) => `<Contents><Key>${key}</Key>${noEtag.has(key) ? '' : `<ETag>${etagOf(body)}</ETag>`}<Size>${Buffer.byteLength(body)}</Size></Contents>`);
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated>${contents.join('')}</ListBucketResult>`);
    }
    const key = path.slice('b/'.length);
    gets.push(key);
    const body = objects.get(key);
    const status = refuse.get(key) ?? (body === undefined ? 404 : undefined);
    if (status !== undefined) {
      res.writeHead(status, { 'content-type': 'application/xml' });
      return res.end(`<?xml version="1.0"?><Error><Code>${ERRORS[status][0]}</Code><Message>${ERRORS[status][1]}</Message></Error>`);
    }
    if (req.headers['if-none-match'] === etagOf(body!)) {
      res.writeHead(304, { etag: etagOf(body!) });
      return res.end();
    }
    res.writeHead(200, { ...(noEtag.has(key) ? {} : { etag: etagOf(body!) }), 'content-length': Buffer.byteLength(body!) });
    const how = cut.get(key);
    if (how === undefined) return res.end(body);
    res.write(Buffer.from(body!).subarray(0, Buffer.byteLength(body!) >> 1), () => {
      if (how === 'reset') res.socket?.resetAndDestroy();
      else if (how === 'truncate') res.socket?.destroy();
    });
  });
  let client: S3Client | undefined;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = await createS3Client({ region: 'us-east-1', endpoint, forcePathStyle: true }, { credentials: { accessKeyId: 'STUB', secretAccessKey: 'STUB' }, maxAttempts: 1 });
  });
  afterAll(async () => {
    client?.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    objects.clear();
    refuse.clear();
    cut.clear();
    noEtag.clear();
    gets.length = 0;
  });
  return () => ({ client: client!, objects, refuse, cut, noEtag, gets });
}
