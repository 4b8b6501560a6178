/**
 * The engine rows (05-review, 35-kyverno) measured again on the other Nodes of bench/nodes.ts — the Node 24
 * that deployments run, when the benchmarks run on another — each in a process of its own
 * (bench/engine-rows.ts), so that the goal table shows the engines' figures on the Node that serves
 * reviews as well as on the running one. Their goal rows (labelled with their Node by
 * the suites) are recorded here; each must meet its goal for `--check`.
 */
import { spawn } from 'node:child_process';
import { recordGoal, type GoalRow } from '../goals.js';
import { benchNodes } from '../nodes.js';
import { ROOT } from '../servers.js';

export const ENGINE_SUITES = ['05-review', '35-kyverno'] as const;
export const ENGINE_ROWS_PREFIX = 'amender-engine-rows ';

/** Runs bench/engine-rows.ts under `nodePath`, echoing its tables; resolves to its goal rows. */
function engineRows(nodePath: string): Promise<GoalRow[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(nodePath, ['--import', './bench/loader/register.mjs', 'bench/engine-rows.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const lines = out.split('\n');
      const rowsLine = lines.find((l) => l.startsWith(ENGINE_ROWS_PREFIX));
      process.stdout.write(lines.filter((l) => !l.startsWith(ENGINE_ROWS_PREFIX)).join('\n'));
      if (code !== 0 || rowsLine === undefined) return reject(new Error(`bench/engine-rows.ts under ${nodePath} exited with ${code} without its rows`));
      resolve(JSON.parse(rowsLine.slice(ENGINE_ROWS_PREFIX.length)) as GoalRow[]);
    });
  });
}

export async function run(): Promise<void> {
  const { nodes, note } = await benchNodes();
  const others = nodes.filter((n) => n.path !== process.execPath);
  if (others.length === 0) {
    console.log(`\n## engine rows on other Nodes: none (${note ?? 'the running Node is the only one'})`);
    return;
  }
  for (const node of others) {
    console.log(`\n# engine suites (${ENGINE_SUITES.join(', ')}) on ${node.label} (${node.version}), in a process of their own`);
    for (const row of await engineRows(node.path)) recordGoal({ ...row, id: `${row.id}-node${node.major}`, command: 'npm run bench -- 38' });
  }
}
