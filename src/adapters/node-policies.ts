/**
 * Policy sources of the Node server that live on its file system: `bundled` (the repository's
 * `policies/` folder) and `file://DIR` or a plain path. Holds the set in force; `reload()` reads the
 * sources again and swaps the set atomically, keeping the last good set when a source cannot be read.
 * (Object-storage sources come with the sources module.)
 */
import { fileURLToPath } from 'node:url';
import { loadPolicies } from '../cli/load.js';
import { nodeCliIO } from '../cli/node-io.js';
import type { CliIO } from '../cli/io.js';
import type { PolicySetProvider, PolicySetState } from '../server/index.js';

/** dist/node/main.js and src/adapters/*.ts are both two levels below the repository root. */
export const BUNDLED_POLICIES_DIR = fileURLToPath(new URL('../../policies/', import.meta.url));

function sourcePath(source: string): string | { error: string } {
  if (source === 'bundled') return BUNDLED_POLICIES_DIR;
  if (source.startsWith('file://')) return source.slice('file://'.length);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return { error: `policy source ${source}: this server reads only bundled and file:// sources` };
  return source;
}

export class FilePolicySources {
  private state: PolicySetState;

  constructor(private readonly sources: readonly string[], private readonly io: CliIO = nodeCliIO()) {
    this.state = { source: sources.join(','), sourceErrors: [] };
  }

  readonly provider: PolicySetProvider = () => this.state;

  /** Reads every source; on failure the set in force stays and the errors are reported. */
  async reload(): Promise<PolicySetState> {
    const paths: string[] = [];
    const errors: string[] = [];
    for (const source of this.sources) {
      const path = sourcePath(source);
      if (typeof path === 'string') paths.push(path);
      else errors.push(path.error);
    }
    if (errors.length === 0) {
      try {
        const { set } = await loadPolicies(paths, this.io);
        this.state = { set, source: this.state.source, loadedAt: new Date(), sourceErrors: [] };
        return this.state;
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    this.state = { ...this.state, sourceErrors: errors };
    return this.state;
  }
}

/** Loads once (benchmarks, tests). */
export async function loadPolicySources(sources: readonly string[], io?: CliIO): Promise<PolicySetState> {
  return new FilePolicySources(sources, io).reload();
}
