/**
 * The Node server buffers its log lines (src/adapters/node-log.ts) instead of writing one per request: the
 * buffer's own rules, and, through the built server, that no line is lost when it stops on SIGTERM or
 * exits on a fatal error, and that a log reader that stops reading costs lines, counted, not the server.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { boundedSink, bufferedLines } from '../../src/adapters/node-log.js';
import { ensureBuilt, ROOT, SERVER_BUNDLE } from '../node/built.js';
import { startBundle, waitFor } from '../node/bundle.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');

describe('bufferedLines', () => {
  afterEach(() => void vi.useRealTimers());

  it('writes the lines waiting together once the interval has passed', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    const buffer = bufferedLines((text) => writes.push(text), { intervalMs: 100 });
    buffer.write('a\n');
    buffer.write('b\n');
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(writes).toEqual(['a\nb\n']);
    buffer.write('c\n');
    vi.advanceTimersByTime(100);
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes at once when maxBytes are waiting, and on flush', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    const buffer = bufferedLines((text) => writes.push(text), { intervalMs: 100, maxBytes: 6 });
    buffer.write('abc\n');
    expect(writes).toEqual([]);
    buffer.write('def\n');
    expect(writes).toEqual(['abc\ndef\n']);
    buffer.write('g\n');
    buffer.flush();
    expect(writes).toEqual(['abc\ndef\n', 'g\n']);
    buffer.flush(); // nothing waiting: no empty write
    vi.advanceTimersByTime(1000);
    expect(writes).toEqual(['abc\ndef\n', 'g\n']);
  });
});

describe('boundedSink', () => {
  it('drops and counts lines while the writer is too far behind, then says how many before the next text', () => {
    const writes: string[] = [];
    let backlog = 0;
    const sink = boundedSink((text) => writes.push(text), () => backlog, 100, (n) => `dropped ${n}\n`);
    sink.write('a\n');
    backlog = 100;
    sink.write('b\nc\n');
    sink.write('d\n');
    expect(writes).toEqual(['a\n']);
    expect(sink.dropped()).toBe(3);
    backlog = 99;
    sink.write('e\n');
    sink.write('f\n');
    expect(writes).toEqual(['a\n', 'dropped 3\n', 'e\n', 'f\n']); // the notice once, before the first text through
    backlog = 500;
    sink.write('g\n');
    backlog = 0;
    sink.write('h\n');
    expect(writes.slice(4)).toEqual(['dropped 1\n', 'h\n']);
    expect(sink.dropped()).toBe(4);
  });
});

describe('the built server log', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('has every request line when stopped by SIGTERM right after the last answer', { timeout: 60_000 }, async () => {
    // Both review paths log the same way: default pool and in-process.
    for (const workers of ['1', '0']) {
      const server = await startBundle({ AMENDER_WORKERS: workers });
      const count = 40;
      const statuses = await Promise.all(
        Array.from({ length: count }, () =>
          fetch(`${server.url}/mutate`, { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ),
      );
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(await server.stop()).toBe(0);
      const requests = server.lines.filter((l) => l.msg === 'request' && l.path === '/mutate');
      expect(requests).toHaveLength(count);
      // The documented fields, in their order.
      expect(Object.keys(requests[0])).toEqual(['time', 'level', 'msg', 'method', 'path', 'status', 'durationMs', 'uid', 'outcome', 'patchOps']);
      expect(server.lines.at(-1)?.msg).toBe('stopped');
      expect(server.lines.some((l) => l.msg === 'shutting down')).toBe(true);
    }
  });

  it('has the lines logged before a fatal exit', { timeout: 30_000 }, async () => {
    // The port is taken: the server logs its review workers, then cannot listen and exits 2.
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    try {
      const child = spawn(process.execPath, [SERVER_BUNDLE], {
        env: { PATH: process.env.PATH ?? '', PORT: String((taken.address() as AddressInfo).port), AMENDER_HOST: '127.0.0.1', AMENDER_WORKERS: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const [code] = (await once(child, 'close')) as [number];
      expect(code).toBe(2);
      expect(stderr).toContain('cannot listen');
      const lines = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map((l) => l.msg)).toContain('review workers');
    } finally {
      taken.close();
    }
  });

  it('drops lines, counted, while nobody reads standard output, and keeps serving', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [SERVER_BUNDLE], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', AMENDER_HOST: '127.0.0.1', AMENDER_LOG_BACKLOG_BYTES: '65536' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      const onData = (d: Buffer) => (stdout += d.toString());
      child.stdout.on('data', onData);
      await waitFor('the server started', () => stdout.includes('"policy sets loaded"'));
      const url = String((JSON.parse(stdout.split('\n').find((l) => l.includes('"listening"'))!) as { url: string }).url);
      // The log reader stops reading: the pipe fills, then what the server cannot write waits in its memory.
      child.stdout.off('data', onData);
      child.stdout.pause();
      const sent = 3000;
      for (let i = 0; i < sent; i++) {
        const r = await fetch(`${url}/mutate`, { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(5000) });
        await r.arrayBuffer();
        expect(r.status).toBe(200);
      }
      expect((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) })).status).toBe(200);
      const metrics = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
      const dropped = Number(/^amender_log_lines_dropped_total (\d+)$/m.exec(metrics)?.[1]);
      // A request's line is about 290 bytes: the pipe (64 KiB), what the reader took before it paused and
      // the server's 64 KiB hold 1,300–1,400 of them here; without the bound none would be dropped.
      expect(dropped).toBeGreaterThan(sent - 2000);
      expect(dropped).toBeLessThan(sent);

      // Reading again: the next lines go through, led by how many were dropped.
      let tail = '';
      child.stdout.on('data', (d: Buffer) => (tail += d.toString()));
      child.stdout.resume();
      await waitFor('the dropped-lines notice', async () => {
        await (await fetch(`${url}/healthz`)).arrayBuffer(); // a line to write
        return tail.includes('"log lines dropped"');
      });
      const lines = tail.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      const notice = lines.find((l) => l.msg === 'log lines dropped');
      expect(notice).toMatchObject({ level: 'warn', maxBacklogBytes: 65536 });
      expect(notice!.count).toBeGreaterThanOrEqual(dropped);
      expect(lines.slice(lines.indexOf(notice!) + 1).some((l) => l.msg === 'request' && l.path === '/healthz')).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('keeps serving, lines dropped and counted, once the reader of standard output has closed it', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [SERVER_BUNDLE], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', AMENDER_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      await waitFor('the server started', () => stdout.includes('"policy sets loaded"'));
      const url = String((JSON.parse(stdout.split('\n').find((l) => l.includes('"listening"'))!) as { url: string }).url);
      // The log reader goes away: the server's next write to its standard output fails with EPIPE.
      child.stdout.destroy();
      for (let i = 0; i < 20; i++) {
        const r = await fetch(`${url}/mutate`, { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(5000) });
        await r.arrayBuffer();
        expect(r.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 20)); // the lines go out every 100 ms
      }
      expect((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) })).status).toBe(200);
      const metrics = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
      expect(Number(/^amender_log_lines_dropped_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
      expect(child.exitCode).toBe(null);
      expect(stderr).not.toContain('EPIPE');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
