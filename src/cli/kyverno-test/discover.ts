/**
 * Test files under the paths `amender test` is given: `amender-test.yaml` (Amender's golden tests,
 * outside hidden folders) and the Kyverno CLI's `kyverno-test.yaml` (any folder, `.kyverno-test/`
 * included, as `kyverno test` walks them). A path that is a file is taken as it is.
 */
import { posix } from 'node:path';
import { CliInputError } from '../errors.js';
import type { CliIO } from '../io.js';

export interface FoundTests {
  golden: string[];
  kyverno: string[];
  /** Files given directly, to be told apart by their content. */
  given: string[];
}

const GOLDEN = /^amender-test\.ya?ml$/;
const MAX_DEPTH = 32;
/** Never test data: version control and dependencies. */
const NEVER = new Set(['.git', 'node_modules']);

export async function findTests(paths: readonly string[], io: CliIO, kyvernoFileName = 'kyverno-test.yaml'): Promise<FoundTests> {
  const found: FoundTests = { golden: [], kyverno: [], given: [] };
  const walk = async (path: string, depth: number, hidden: boolean): Promise<void> => {
    const entries = io.listDir ? await io.listDir(path) : undefined;
    if (entries === undefined) {
      if (depth === 0) found.given.push(path);
      else if (!hidden && GOLDEN.test(posix.basename(path))) found.golden.push(path);
      else if (posix.basename(path) === kyvernoFileName) found.kyverno.push(path);
      return;
    }
    if (depth > MAX_DEPTH) throw new CliInputError(`${path}: folders nested deeper than ${MAX_DEPTH} levels`);
    for (const name of [...entries].sort()) {
      if (NEVER.has(name)) continue;
      await walk(posix.join(path, name), depth + 1, hidden || name.startsWith('.'));
    }
  };
  for (const path of paths) await walk(path, 0, false);
  return found;
}
