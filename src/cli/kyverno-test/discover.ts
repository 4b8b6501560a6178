/**
 * Test files under the paths `amender test` is given: `amender-test.yaml` (Amender's golden tests,
 * outside hidden folders) and the Kyverno CLI's `kyverno-test.yaml` (any folder, `.kyverno-test/`
 * included, as `kyverno test` walks them). A path that is a file is taken as it is. A link back to a
 * folder being walked is not followed (a loop would otherwise end the run at the depth limit); Kyverno's
 * CLI follows no link to a folder at all.
 */
import { posix } from 'node:path';
import { CliInputError } from '../errors.js';
import type { CliIO } from '../io.js';

export interface FoundTests {
  golden: string[];
  kyverno: string[];
  /** Files given directly, to be told apart by their content. */
  given: string[];
  /** Links back to a folder they are in, left out: `link -> folder` (only when there is one). */
  loops?: string[];
}

const GOLDEN = /^amender-test\.ya?ml$/;
const MAX_DEPTH = 32;
/** Never test data: version control and dependencies. */
const NEVER = new Set(['.git', 'node_modules']);

export async function findTests(paths: readonly string[], io: CliIO, kyvernoFileName = 'kyverno-test.yaml'): Promise<FoundTests> {
  const found: FoundTests = { golden: [], kyverno: [], given: [] };
  const walk = async (path: string, depth: number, hidden: boolean, above: readonly string[]): Promise<void> => {
    const entries = io.listDir ? await io.listDir(path) : undefined;
    if (entries === undefined) {
      if (depth === 0) found.given.push(path);
      else if (!hidden && GOLDEN.test(posix.basename(path))) found.golden.push(path);
      else if (posix.basename(path) === kyvernoFileName) found.kyverno.push(path);
      return;
    }
    const real = io.realPath ? await io.realPath(path) : undefined;
    if (real !== undefined && above.includes(real)) {
      (found.loops ??= []).push(`${path} -> ${real}`);
      return;
    }
    if (depth > MAX_DEPTH) throw new CliInputError(`${path}: folders nested deeper than ${MAX_DEPTH} levels`);
    for (const name of [...entries].sort()) {
      if (NEVER.has(name)) continue;
      await walk(posix.join(path, name), depth + 1, hidden || name.startsWith('.'), real !== undefined ? [...above, real] : above);
    }
  };
  for (const path of paths) await walk(path, 0, false, []);
  return found;
}
