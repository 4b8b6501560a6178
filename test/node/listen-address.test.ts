/**
 * Without AMENDER_HOST the server listened on 0.0.0.0, IPv4 only: in an IPv6-only cluster, where the API
 * server and the kubelet call the pod's IPv6 address, every review failed to connect. It now listens on
 * every address as Node does when given none (`::`, dual-stack, where the host has IPv6). Reached here
 * over both loopbacks.
 */
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './built.js';
import { startBundle, type Running } from './bundle.js';

/** Whether this host has IPv6 loopback (a container may have it disabled). */
const hasIpv6 = Object.values(networkInterfaces()).some((list) => list?.some((i) => i.family === 'IPv6' && i.internal));

function status(host: string, port: number): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host, port, path: '/healthz', timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

describe.runIf(hasIpv6)('the built server without AMENDER_HOST', () => {
  let server: Running;
  beforeAll(async () => {
    ensureBuilt();
    // An empty variable counts as unset (startBundle sets 127.0.0.1 unless told).
    server = await startBundle({ AMENDER_HOST: '', AMENDER_WORKERS: '0' }, { until: 'listening' });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('answers over IPv6 and IPv4 alike', async () => {
    const port = Number(new URL(server.url).port);
    expect(await status('::1', port)).toBe(200);
    expect(await status('127.0.0.1', port)).toBe(200);
  });
});
