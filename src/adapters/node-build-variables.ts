/**
 * Variables the build reads, not the server (scripts/compile-cache.mjs, the warm-up runs of
 * script-cache.ts). An image may carry them in its environment — the Knative Dockerfile sets
 * AMENDER_COMPILE_CACHE_NODE for its build step — and they are no misspelt setting.
 */
import { WRITE_CODE_CACHE_VARIABLE } from './script-cache.js';

export const BUILD_VARIABLES: readonly string[] = [WRITE_CODE_CACHE_VARIABLE, 'AMENDER_COMPILE_CACHE_NODE'];
