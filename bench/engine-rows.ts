/**
 * Run by bench/suites/38-engines-other-nodes.ts under another Node: the engine suites (05, 35) in this
 * process, their tables as they print them, then their goal rows as one JSON line after ENGINE_ROWS_PREFIX.
 */
import { recordedGoals } from './goals.js';
import { ENGINE_ROWS_PREFIX, ENGINE_SUITES } from './suites/38-engines-other-nodes.js';

for (const suite of ENGINE_SUITES) await ((await import(`./suites/${suite}.ts`)) as { run(): Promise<void> }).run();
console.log(ENGINE_ROWS_PREFIX + JSON.stringify(recordedGoals()));
