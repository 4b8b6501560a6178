/**
 * `node --import ./bench/loader/register.mjs bench/run.ts`: runs the TypeScript sources through a
 * transpile-only esbuild hook (hooks.mjs) instead of tsx. tsx keeps function names by wrapping every
 * closure it creates in a `__name` call, which production bundles do not do; in the engine's hot
 * paths that cost 15% of a review. The benchmarks measure the code as it ships.
 */
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
