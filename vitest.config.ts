import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // At least two test files at a time, even on two CPUs (vitest's default there is one): many files
    // spend most of their time waiting on the servers they start, timers and child processes. On two CPUs
    // this takes the suite from about 13 to about 7.5 minutes.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Test files share their worker's modules instead of each importing the whole source tree again
    // (vitest's default): importing was 254 of the suite's 978 s of file time on two CPUs, and the suite
    // took 428 instead of 682 s. Tests keep no state in modules that another file could see: the suite
    // passes with its files in a shuffled order (npm test -- --sequence.shuffle.files).
    isolate: false,
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    },
  },
});
