/**
 * Many policy sets (clusters) sharing the process's one S3 client, against a store that is slow but
 * answers every request in time (s3rver behind a loopback relay that holds each request for a while).
 * The SDK starts a request's connection and request timeouts when the request is made, not when it gets
 * one of its pool's 50 sockets, so requests that waited for a socket used to time out ("the store did not
 * answer within 3000 ms") and sets failed to load. Requests now wait for a slot in Amender's own queue
 * (S3_REQUESTS_IN_FLIGHT per client), where no SDK timer runs, bounded by the refresh's deadline; the
 * refresh that began first is served first.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicySetRefresher } from '../../src/sources/index.js';
import { createS3Client, s3Source } from '../../src/sources/node/index.js';
import { S3_SOCKETS } from '../../src/sources/node/s3-client.js';
import { requestSlot, requestSlotState, requestTicket, S3_REQUESTS_IN_FLIGHT } from '../../src/sources/node/s3-request-slots.js';
import { BUCKET, labelPolicy, startS3, type TestS3 } from './helpers.js';

/**
 * A TCP relay on 127.0.0.1 to `port` that passes every chunk the client sends `delayMs` late: each
 * request is answered that much later (a distant or loaded store). Counts the connections open at once.
 */
async function startSlowRelay(port: number, delayMs: number) {
  const stats = { open: 0, maxOpen: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    stats.open++;
    stats.maxOpen = Math.max(stats.maxOpen, stats.open);
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.once('close', () => {
      stats.open--;
      sockets.delete(client);
      end();
    });
    upstream.once('close', () => {
      sockets.delete(upstream);
      end();
    });
    client.on('error', end);
    upstream.on('error', end);
    client.on('data', (chunk) => setTimeout(() => upstream.destroyed || upstream.write(chunk), delayMs));
    client.on('end', () => setTimeout(() => upstream.destroyed || upstream.end(), delayMs));
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const SETS = 60;
const OBJECTS = 8;
const DELAY_MS = 500;

let s3: TestS3;
let relay: Awaited<ReturnType<typeof startSlowRelay>>;
beforeAll(async () => {
  s3 = await startS3();
  for (let c = 0; c < SETS; c++) {
    await Promise.all(Array.from({ length: OBJECTS }, (_, k) => s3.put(`pool/c${c}/p${k}.yaml`, labelPolicy(`p${k}`, `k${k}`, `c${c}`))));
  }
  relay = await startSlowRelay(s3.port, DELAY_MS);
}, 60_000);
afterAll(async () => {
  await relay?.close();
  await s3?.dispose();
});

describe('S3 sources sharing one client', () => {
  it(`loads ${SETS} sets of ${OBJECTS} objects each at once from a store answering every request ${DELAY_MS} ms late`, async () => {
    // The client as a server makes it: the SDK's default pool and Amender's timeouts (3 s to connect,
    // 10 s per request), nothing overridden but the credentials.
    const client = await createS3Client({ region: 'us-east-1', endpoint: relay.endpoint, forcePathStyle: true }, { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    try {
      const refreshers = Array.from({ length: SETS }, (_, c) => {
        const source = s3Source({ uri: `s3://${BUCKET}/pool/c${c}`, client, bucket: BUCKET, prefix: `pool/c${c}` });
        return new PolicySetRefresher({ name: `c${c}`, sources: [source], intervalMs: 0 });
      });
      const started = Date.now();
      const results = await Promise.all(refreshers.map((r) => r.refresh()));
      const elapsed = Date.now() - started;
      expect(results.flatMap((r) => r.errors)).toEqual([]);
      expect(results.map((r) => r.outcome)).toEqual(Array(SETS).fill('applied'));
      for (const r of refreshers) expect(r.provider().set?.mutatingPolicies).toHaveLength(OBJECTS);
      // Never more requests at once than slots, so never a request waiting for a socket.
      expect(relay.stats.maxOpen).toBeLessThanOrEqual(S3_SOCKETS);
      expect(requestSlotState(client)).toEqual({ running: 0, waiting: 0 });
      console.log(`${SETS} sets x ${OBJECTS} objects, ${DELAY_MS} ms per request: loaded in ${elapsed} ms, at most ${relay.stats.maxOpen} connections`);
    } finally {
      client.destroy();
    }
  }, 60_000);

  it('a request waiting for a slot gives up at its signal (the refresh deadline) and leaves the queue', async () => {
    const client = await createS3Client({ region: 'us-east-1', endpoint: relay.endpoint, forcePathStyle: true }, { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    try {
      const never = new AbortController().signal;
      const held = await Promise.all(Array.from({ length: S3_REQUESTS_IN_FLIGHT }, () => requestSlot(client, never)));
      expect(requestSlotState(client)).toEqual({ running: S3_REQUESTS_IN_FLIGHT, waiting: 0 });
      const deadline = new AbortController();
      const early = requestTicket();
      const late = requestTicket();
      const waiting = requestSlot(client, deadline.signal, early);
      const later = requestSlot(client, never, late);
      const next = requestSlot(client, never, early); // the refresh that began first goes first
      expect(requestSlotState(client)).toEqual({ running: S3_REQUESTS_IN_FLIGHT, waiting: 3 });
      deadline.abort(new Error('refreshing policy set x did not finish within 30000 ms'));
      await expect(waiting).rejects.toThrow('did not finish within 30000 ms');
      expect(requestSlotState(client)).toEqual({ running: S3_REQUESTS_IN_FLIGHT, waiting: 2 });
      held[0]();
      held[0](); // a second release of the same slot is no second slot
      const release = await next;
      expect(requestSlotState(client)).toEqual({ running: S3_REQUESTS_IN_FLIGHT, waiting: 1 });
      release();
      (await later)();
      for (const r of held.slice(1)) r();
      expect(requestSlotState(client)).toEqual({ running: 0, waiting: 0 });
      await expect(requestSlot(client, deadline.signal)).rejects.toThrow('did not finish within 30000 ms');
    } finally {
      client.destroy();
    }
  });
});
