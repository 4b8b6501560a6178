/** The three built runtimes side by side, for tests that compare their answers. */
import { afterAll, beforeAll } from 'vitest';
import { startBundle, type Running } from '../node/bundle.js';
import { startLambda, type LambdaProcess } from './lambda.js';
import { startWorker, type RunningWorker } from './workers.js';

export interface EveryRuntime {
  node: Running;
  lambda: LambdaProcess;
  worker: RunningWorker;
}

/**
 * Call inside a describe: the built Node server, Lambda handler and Worker with the default settings,
 * started before its tests and stopped after them (the members are set once they are started).
 */
export function everyRuntime(): EveryRuntime {
  const started = {} as EveryRuntime;
  beforeAll(async () => {
    [started.node, started.lambda, started.worker] = await Promise.all([startBundle({}), startLambda({}), startWorker({})]);
  });
  afterAll(async () => {
    await Promise.all([started.node?.stop(), started.lambda?.stop(), started.worker?.dispose()]);
  });
  return started;
}
