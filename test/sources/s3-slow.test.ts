/**
 * The S3 source against a store that stops answering: a connection accepted and never answered (a
 * loopback TCP relay in front of s3rver that stops relaying), and an object whose body stops halfway
 * (the S3 stub). Each S3 request ends at the client's own timeout, not only at the refresh's deadline:
 * the refresh fails with a message saying the store did not answer, the last good set stays in force,
 * the error is in the state /readyz shows and in the log, and the next refresh reads the store again.
 */
import { Agent } from 'node:http';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/server/index.js';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { createS3Client, s3Source } from '../../src/sources/node/index.js';
import { BUCKET, labelPolicy, recordingLogger, startS3, type TestS3 } from './helpers.js';
import { startS3Stub, type S3Stub } from './s3-stub.js';

/**
 * A TCP relay on 127.0.0.1 to `port`. `hang(true)` closes the connections it relays and from then on
 * accepts connections and reads them but never connects them anywhere nor answers: a store that stopped.
 */
async function startRelay(port: number) {
  let hanging = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const closed = () => {
      client.destroy();
      sockets.delete(client);
    };
    client.on('close', closed).on('error', closed);
    if (hanging) return void client.resume();
    const upstream = connect(port, '127.0.0.1');
    sockets.add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      closed();
      upstream.destroy();
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hang(on: boolean) {
      hanging = on;
      if (on) for (const s of sockets) s.destroy();
    },
    /** Connections still open. */
    open: () => sockets.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let s3: TestS3;
let relay: Awaited<ReturnType<typeof startRelay>>;
let stub: S3Stub;
beforeAll(async () => {
  s3 = await startS3();
  relay = await startRelay(s3.port);
  stub = await startS3Stub(BUCKET);
});
afterAll(async () => {
  await relay?.close();
  await s3?.dispose();
  await stub?.close();
});

const names = (r: PolicySetRefresher) => r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];

describe('S3 source, a store that stops answering', () => {
  it('ends a request that gets no answer at the client timeout; the last good set stays; the next refresh reads again', async () => {
    await s3.clear();
    await s3.put('slow/a.yaml', labelPolicy('a', 'team', 'one'));
    // Only the request timeout is given: the client's other settings (that it throws) are Amender's. No
    // keep-alive: a request on the connection the relay cuts at hang(true) would fail at once ('socket hang
    // up', which the SDK retries where maxAttempts allows) instead of meeting the hanging store.
    const client = await createS3Client(
      { region: 'us-east-1', endpoint: relay.endpoint, forcePathStyle: true },
      { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, maxAttempts: 1, requestHandler: { requestTimeout: 1_000, httpAgent: new Agent({ keepAlive: false }) } },
    );
    try {
      const source = s3Source({ uri: `s3://${BUCKET}/slow`, client, bucket: BUCKET, prefix: 'slow' });
      const { logs, logger } = recordingLogger();
      const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, logger, limits: { timeoutMs: 8_000 } });
      expect((await r.refresh()).outcome).toBe('applied');
      const good = r.provider().set;

      relay.hang(true);
      const result = await r.refresh();
      expect(result.outcome).toBe('failed');
      // The S3 request's own timeout, not the refresh's deadline ("did not finish within 8000 ms").
      expect(result.errors).toEqual([expect.stringMatching(/^s3:\/\/policies\/slow: cannot list s3:\/\/policies\/slow\/: the store did not answer within 1000 ms/)]);
      expect(r.provider().set).toBe(good);
      expect(names(r)).toEqual(['a']);
      expect(logs.filter((l) => l.msg === 'policy sources unreadable')).toHaveLength(1);
      const { app } = createApp({ policies: r.provider });
      const ready = await app.fetch(new Request('http://amender.test/readyz'));
      const body = (await ready.json()) as { sourceErrors?: string[] };
      expect(body.sourceErrors).toEqual([expect.stringContaining('the store did not answer within 1000 ms')]);

      relay.hang(false);
      await vi.waitFor(() => expect(relay.open()).toBe(0), { timeout: 5_000 }); // the hung connection was given up
      expect((await r.refresh()).outcome).toBe('unchanged');
      expect(r.provider().sourceErrors).toEqual([]);
      await s3.put('slow/b.yaml', labelPolicy('b', 'team', 'two'));
      expect((await r.refresh()).outcome).toBe('applied');
      expect(names(r)).toEqual(['a', 'b']);
    } finally {
      client.destroy();
      relay.hang(false);
    }
  });

  it('ends a body that stops halfway once the socket is idle for the timeout; the last good set stays', async () => {
    stub.objects.clear();
    stub.mode = 'ok';
    stub.objects.set('p/a.yaml', labelPolicy('a', 'team', 'one'));
    const client = await createS3Client(
      { region: 'us-east-1', endpoint: stub.endpoint, forcePathStyle: true },
      { credentials: { accessKeyId: 'STUB', secretAccessKey: 'STUB' }, maxAttempts: 1, requestHandler: { requestTimeout: 1_000 } },
    );
    try {
      const source = s3Source({ uri: `s3://${BUCKET}/p`, client, bucket: BUCKET, prefix: 'p' });
      const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, limits: { timeoutMs: 8_000 } });
      expect((await r.refresh()).outcome).toBe('applied');
      const good = r.provider().set;
      stub.objects.set('p/a.yaml', labelPolicy('a', 'team', 'changed'));
      stub.mode = 'stall-body';
      const result = await r.refresh();
      expect(result.outcome).toBe('failed');
      expect(result.errors).toEqual([expect.stringMatching(/^s3:\/\/policies\/p: cannot read s3:\/\/policies\/p\/a\.yaml: the store did not answer within 1000 ms/)]);
      expect(r.provider().set).toBe(good);
      await vi.waitFor(() => expect(stub.hangingOpen()).toBe(0), { timeout: 5_000 });
      stub.mode = 'ok';
      expect((await r.refresh()).outcome).toBe('applied');
      expect(r.provider().sourceErrors).toEqual([]);
    } finally {
      client.destroy();
      stub.mode = 'ok';
    }
  });
});
