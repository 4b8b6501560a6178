/**
 * A small S3-protocol stub on 127.0.0.1, for what s3rver never does: a listing without sizes, bodies sent
 * without Content-Length (chunked), and a store that fails (500, garbage XML, no answer at all). It serves
 * ListObjectsV2 and GetObject (with If-None-Match) of one bucket, path style.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../src/sources/node/index.js';

/** How the stub answers: `ok` as S3 does (less the sizes), or one way of failing. */
/** `loop-listing`: every listing page says more follows, with the same continuation token (a broken store or proxy). */
export type StubMode = 'ok' | 'error-500' | 'garbage-xml' | 'html' | 'hang' | 'stall-body' | 'loop-listing';

export interface S3Stub {
  endpoint: string;
  client: S3Client;
  objects: Map<string, string>;
  mode: StubMode;
  /**
   * Whether listings write ETags quoted, as S3 does (default) or bare, as some compatible stores do
   * (NetApp ONTAP) while their GetObject's ETag header is quoted.
   */
  quoteListedEtags: boolean;
  /** Requests seen, as `METHOD path?query`. */
  requests: string[];
  /** Requests left unanswered (mode `hang`), or whose body stopped halfway (`stall-body`), whose connection is still open. */
  hangingOpen: () => number;
  /** Bytes of object bodies sent so far. */
  bodyBytesSent: () => number;
  close(): Promise<void>;
}

const etagOf = (body: string) => `"${createHash('md5').update(body).digest('hex')}"`;
const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function startS3Stub(bucket: string): Promise<S3Stub> {
  const objects = new Map<string, string>();
  const requests: string[] = [];
  const hanging = new Set<ServerResponse>();
  let sent = 0;
  const stub = { mode: 'ok' as StubMode, quoteListedEtags: true };

  const list = (res: ServerResponse, prefix: string) => {
    const contents = [...objects.keys()]
      .filter((k) => k.startsWith(prefix))
      .sort()
      .map((k) => {
        const etag = etagOf(objects.get(k)!);
        return `<Contents><Key>${xmlEscape(k)}</Key><ETag>${xmlEscape(stub.quoteListedEtags ? etag : etag.slice(1, -1))}</ETag></Contents>`;
      })
      .join('');
    const more = stub.mode === 'loop-listing' ? '<IsTruncated>true</IsTruncated><NextContinuationToken>page-2</NextContinuationToken>' : '<IsTruncated>false</IsTruncated>';
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix>${more}${contents}</ListBucketResult>`);
  };

  /** The body in 64 KiB chunks without Content-Length, stopping when the client goes away. */
  const chunked = (res: ServerResponse, body: string) => {
    const bytes = Buffer.from(body);
    res.writeHead(200, { 'content-type': 'application/yaml', etag: etagOf(body) });
    let at = 0;
    const more = () => {
      while (at < bytes.length && !res.destroyed) {
        const chunk = bytes.subarray(at, at + 65536);
        at += chunk.length;
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      if (!res.destroyed) res.end();
    };
    more();
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    if (stub.mode === 'hang') {
      hanging.add(res);
      return;
    }
    if (stub.mode === 'error-500') {
      res.writeHead(500, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0"?><Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>');
      return;
    }
    if (stub.mode === 'html') {
      // What a proxy's login page, or an endpoint that is no S3, answers: 200 and well-formed markup.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Sign in</title></head><body><p>Please sign in</p></body></html>');
      return;
    }
    if (stub.mode === 'garbage-xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<<<not xml at all');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://stub');
    const path = decodeURIComponent(url.pathname).replace(/^\/+/, '');
    if (path === bucket || path === `${bucket}/`) return list(res, url.searchParams.get('prefix') ?? '');
    const key = path.slice(bucket.length + 1);
    const body = objects.get(key);
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>no such key</Message></Error>');
      return;
    }
    if (stub.mode === 'stall-body') {
      // The headers and half the body (sized), then nothing: a store that stops sending.
      const bytes = Buffer.from(body);
      res.writeHead(200, { 'content-type': 'application/yaml', 'content-length': bytes.length, etag: etagOf(body) });
      res.write(bytes.subarray(0, bytes.length >> 1));
      hanging.add(res);
      return;
    }
    if (req.headers['if-none-match'] === etagOf(body)) {
      res.writeHead(304, { etag: etagOf(body) });
      res.end();
      return;
    }
    chunked(res, body);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = await createS3Client(
    { region: 'us-east-1', endpoint, forcePathStyle: true },
    { credentials: { accessKeyId: 'STUB', secretAccessKey: 'STUB' }, maxAttempts: 1, requestHandler: { connectionTimeout: 2_000, requestTimeout: 2_000 } },
  );
  return Object.assign(stub, {
    endpoint,
    client,
    objects,
    requests,
    bodyBytesSent: () => sent,
    hangingOpen: () => [...hanging].filter((res) => !res.socket?.destroyed).length,
    close: async () => {
      client.destroy();
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/**
 * Call at the top of a test file: a stub for `bucket` started before the file's tests and closed after
 * them, emptied and answering normally before each test. Returns the stub's getter.
 */
export function useS3Stub(bucket: string): () => S3Stub {
  let stub: S3Stub | undefined;
  beforeAll(async () => {
    stub = await startS3Stub(bucket);
  });
  afterAll(async () => {
    await stub?.close();
  });
  beforeEach(() => {
    stub!.objects.clear();
    stub!.mode = 'ok';
    stub!.quoteListedEtags = true;
  });
  return () => stub!;
}
