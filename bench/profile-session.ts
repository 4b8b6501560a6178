/**
 * A CPU profile of a function run in a loop, through the inspector's sampling profiler (50 µs interval):
 * what bench/profile-kyverno.ts and bench/profile-map.ts summarize, each in its own way.
 */
import { Session } from 'node:inspector/promises';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Runs `once` repeatedly for `seconds` under the profiler (after the caller's warm-up); the profile and how many runs it holds. */
export async function profileLoop(once: () => Promise<unknown>, seconds: number): Promise<{ profile: Profile; runs: number }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 50 });
    await session.post('Profiler.start');
    const end = performance.now() + seconds * 1000;
    let runs = 0;
    while (performance.now() < end) {
      await once();
      runs++;
    }
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    return { profile, runs };
  } finally {
    session.disconnect();
  }
}
