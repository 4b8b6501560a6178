/**
 * A warm Lambda invocation that finds its policy set due for a refresh waits for that refresh after the
 * review is answered, at most AMENDER_REFRESH_WAIT_MS (the environment is frozen once the result is
 * returned). The wait ignored the API server's `?timeout=`: behind a slow store the reply left after the
 * API server had given up (measured: `?timeout=1s`, the default 2 s wait, the reply after 2,064 ms), so the
 * review's answer was lost and the webhook's own failurePolicy applied (Ignore: the object admitted
 * unmutated). The wait now ends when the review's share of that timeout (80 %, at least 500 ms before it,
 * as for the review's deadline) has passed. The handler is fed Function URL events; the store's refresh
 * listing is held by the test until the handler has answered.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLambdaHandler, type LambdaHandler } from '../../src/adapters/lambda-handler.js';
import { readServerlessConfig } from '../../src/adapters/serverless-config.js';
import { createServerlessRuntime } from '../../src/adapters/serverless-runtime.js';
import { bundledSource, bundlePolicies, type PolicySource } from '../../src/sources/index.js';
import { labelPolicy } from '../sources/helpers.js';
import { ROOT } from '../node/built.js';
import { functionUrlEvent } from './lambda.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');

/** A store whose listings, once `hold()` is called, wait until `release()`. */
interface HeldStore {
  source: PolicySource;
  hold(): void;
  held(): boolean;
  release(): void;
}

async function heldStore(): Promise<HeldStore> {
  const made = await bundlePolicies([{ name: 'label.yaml', text: labelPolicy('label', 'team', 'core') }]);
  if (!made.ok) throw new Error('the test policy does not bundle');
  const source = bundledSource(made.bundle);
  let holding = false;
  let waiting = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    source: {
      ...source,
      async list(options) {
        if (holding) {
          waiting++;
          await gate;
          waiting--;
        }
        return source.list(options);
      },
    },
    hold: () => {
      holding = true;
    },
    held: () => waiting > 0,
    release: () => release(),
  };
}

describe('a warm invocation that finds its set due for a refresh', () => {
  let store: HeldStore;
  let handler: LambdaHandler;
  beforeAll(async () => {
    store = await heldStore();
    // Refreshed when older than a second; the invocation may wait a minute for a refresh (a user's setting).
    const runtime = createServerlessRuntime({ config: readServerlessConfig({ AMENDER_REFRESH_SECONDS: '1' }), resolvers: { bundled: () => store.source }, platform: 'AWS Lambda', logger: () => {} });
    await runtime.ensureLoaded();
    store.hold();
    handler = createLambdaHandler(runtime, { refreshWaitMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 1100));
  });

  it("answers within the API server's timeout while the refresh is still held, the review patched", async () => {
    try {
      const event = functionUrlEvent({ name: 'review', method: 'POST', path: '/mutate?timeout=2s', body: REVIEW, headers: { 'content-type': 'application/json' } }, false);
      // The function has minutes left: only the API server's timeout ends the wait (before: the test's own timeout).
      const result = await handler(event, { getRemainingTimeInMillis: () => 300_000 });
      expect(store.held()).toBe(true);
      expect(result.statusCode).toBe(200);
      const reply = JSON.parse(result.body ?? '') as { response: { allowed: boolean; patch?: string } };
      expect(reply.response.allowed).toBe(true);
      expect(Buffer.from(reply.response.patch ?? '', 'base64').toString()).toContain('/metadata/labels/team');
    } finally {
      store.release();
    }
  }, 20_000);
});
