/**
 * The garbage collections of each thread of the built Node server under the HTTP suite's load (the
 * pod-create review, 50 connections): V8's `--trace-gc-nvp` read from the server's standard output, one
 * line per collection, summed per thread over the measured seconds.
 *
 *   node --import ./bench/loader/register.mjs bench/profile-gc.ts [seconds] [KEY=VALUE ...] [--v8-flag ...]
 *
 * (Node 24 when the machine has it; KEY=VALUE goes to the server's environment, e.g. AMENDER_WORKERS=0;
 * an argument starting with -- goes to the server's Node, e.g. --no-parallel-scavenge.)
 * What to read: a young-generation collection (scavenge) copies what is alive and promotes what survived
 * the one before, so under a steady load it should keep about what is in flight and promote next to
 * nothing. When it promotes megabytes, finished requests are being kept alive through the young
 * collections until a full one (a long-lived Map or Set gaining and losing an entry per request did that
 * twice: bench/JOURNAL.md, "What stop 25 did" and "Stop 48's run"), and every scavenge pays for copying them.
 * "old KB/s direct" is what the old generation gained between scavenges beyond their promotions: under a
 * steady load it should be next to nothing; when it is megabytes a second, something long-lived allocates
 * there at every request (a long-lived Map resized per request did: "Stop 49's run") and full collections follow.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { WARMUP_SECONDS, loadFor } from './load.js';
import { benchNodes } from './nodes.js';
import { ROOT, buildServers, startServer } from './servers.js';

const autocannon = createRequire(import.meta.url)('autocannon') as (opts: object) => Promise<any>;

interface Collection {
  /** The isolate's index in V8's line prefix `[pid:address:index]`: 0 is the main thread. */
  thread: number;
  kind: string;
  pauseMs: number;
  survivedBytes: number;
  promotedBytes: number;
  /** The heap's objects after the collection, young survivors included. */
  endBytes: number;
  /** When it happened, in ms since the isolate started. */
  atMs: number;
}

/** One `--trace-gc-nvp` line, or undefined for any other line (the server's log). */
function parseNvp(line: string): Collection | undefined {
  const prefix = /^\[\d+:0x[0-9a-f]+:(\d+)\]\s+(\d+) ms: (.*)$/.exec(line);
  if (!prefix) return undefined;
  const fields = new Map(prefix[3].split(' ').map((kv) => kv.split('=') as [string, string]));
  const kind = fields.get('gc');
  if (kind === undefined) return undefined;
  return {
    thread: Number(prefix[1]),
    kind,
    pauseMs: Number(fields.get('pause') ?? 0),
    survivedBytes: Number(fields.get('new_space_survived') ?? 0),
    promotedBytes: Number(fields.get('promoted') ?? 0),
    endBytes: Number(fields.get('end_object_size') ?? 0),
    atMs: Number(prefix[2]),
  };
}

/**
 * KB per second the old generation grew between consecutive scavenges of one thread beyond what they
 * promoted: objects V8 allocated there directly (a long-lived Map's or Set's regrown tables are; so are
 * pretenured objects), which only a full collection frees. Pairs with a full collection between them
 * are left out.
 */
function directOldGrowth(collections: Collection[]): number {
  let grown = 0;
  let spanMs = 0;
  for (let i = 1; i < collections.length; i++) {
    const [before, after] = [collections[i - 1], collections[i]];
    if (before.kind !== 's' || after.kind !== 's') continue;
    grown += after.endBytes - after.survivedBytes - (before.endBytes - before.survivedBytes) - after.promotedBytes;
    spanMs += after.atMs - before.atMs;
  }
  return spanMs === 0 ? 0 : grown / 1024 / (spanMs / 1000);
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

const args = process.argv.slice(2);
const seconds = Number(args.find((a) => /^\d+$/.test(a)) ?? 8);
const nodeFlags = args.filter((a) => a.startsWith('--'));
const env = Object.fromEntries(args.filter((a) => a.includes('=') && !a.startsWith('--')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const node = (await benchNodes()).nodes[0];
const body = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
const servers = await buildServers();
const collections: Collection[] = [];
try {
  const server = await startServer(servers.amender, env, node.path, {
    nodeFlags: ['--trace-gc-nvp', ...nodeFlags],
    stdout: (stream) => createInterface({ input: stream }).on('line', (line) => {
      const c = parseNvp(line);
      if (c) collections.push(c);
    }),
  });
  try {
    const request = { url: `http://127.0.0.1:${server.port}/mutate`, method: 'POST', headers: { 'content-type': 'application/json' }, body };
    await autocannon({ ...request, ...loadFor(50, WARMUP_SECONDS) });
    const from = collections.length;
    const result = await autocannon({ ...request, ...loadFor(50, seconds) });
    const measured = collections.slice(from);
    console.log(`${node.label} (${node.version}), ${[...nodeFlags, JSON.stringify(env)].join(' ')}: ${Math.round(result.requests.average)} requests/s, p99 ${result.latency.p99} ms, ${seconds} s after ${WARMUP_SECONDS} s of the same load`);
    console.log('thread   scavenges/s  pause p50 / p90 / max ms  ms per s  survived KB  promoted KB  old KB/s direct  full GCs');
    for (const thread of [...new Set(measured.map((c) => c.thread))].sort((a, b) => a - b)) {
      const ofThread = measured.filter((c) => c.thread === thread);
      const scavenges = ofThread.filter((c) => c.kind === 's');
      const full = ofThread.filter((c) => c.kind !== 's');
      const pauses = scavenges.map((c) => c.pauseMs).sort((a, b) => a - b);
      const mean = (f: (c: Collection) => number) => (scavenges.length === 0 ? 0 : scavenges.reduce((sum, c) => sum + f(c), 0) / scavenges.length);
      const spent = [...scavenges, ...full].reduce((sum, c) => sum + c.pauseMs, 0) / seconds;
      const name = thread === 0 ? 'main' : `worker ${thread}`;
      console.log(
        `${name.padEnd(8)} ${(scavenges.length / seconds).toFixed(1).padStart(11)}  ${[0.5, 0.9, 1].map((p) => percentile(pauses, p).toFixed(2)).join(' / ').padStart(24)}  ${spent.toFixed(1).padStart(8)}  ${(mean((c) => c.survivedBytes) / 1024).toFixed(0).padStart(11)}  ${(mean((c) => c.promotedBytes) / 1024).toFixed(0).padStart(11)}  ${directOldGrowth(ofThread).toFixed(0).padStart(15)}  ${String(full.length).padStart(8)}`,
      );
    }
  } finally {
    await server.stop();
  }
} finally {
  servers.remove();
}
