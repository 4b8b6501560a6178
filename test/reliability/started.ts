/**
 * Starts the built server for the reliability tests and waits until /readyz says ready. It does not rely
 * on the "policy sets loaded" log line, so the same test runs against an older build and fails there for
 * the behaviour it checks, not for a missing log line.
 */
import { startBundle, waitFor, type Running } from '../node/bundle.js';

export async function startReady(env: Record<string, string>): Promise<Running> {
  const server = await startBundle(env, { until: 'listening' });
  try {
    await waitFor('the server ready', async () => (await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(5000) })).status === 200);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}
