/**
 * Files of the repository the user guides name in their prose (`test/reliability/fuzz-http.test.ts`,
 * `src/adapters/script-cache.ts`, `bench/goals.ts`): each exists, so a file renamed or removed takes its
 * mentions with it. test/node/readme.test.ts checks the links and the quick start's commands; these are
 * the paths written as text.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../node/built.js';

const GUIDES = ['README.md', 'infra/README.md', 'infra/lambda/README.md', 'bench/README.md', 'CONTRIBUTING.md'];

/** Paths below the repository's top folders, ending in a file extension (globs such as `bench/suites/*` are left out). */
const PATH = /(?<![\w./-])((?:src|test|bench|scripts|infra|policies|docs)\/[\w./-]+\.(?:ts|mjs|cjs|js|md|ya?ml|json|toml))(?![\w*])/g;

describe('the guides name only files that exist', () => {
  for (const guide of GUIDES) {
    it(guide, () => {
      const text = readFileSync(join(ROOT, guide), 'utf8');
      const paths = [...new Set([...text.matchAll(PATH)].map((m) => m[1]))];
      if (guide === 'README.md') expect(paths.length).toBeGreaterThan(20);
      for (const path of paths) expect(existsSync(join(ROOT, path)), `${guide} names ${path}`).toBe(true);
    });
  }
});
