/**
 * The API server's `?timeout=` on a webhook call (src/server/api-timeout.ts): read as Go's Duration text,
 * and the review deadline it leaves, by the rule `amender webhook-config` states for timeoutSeconds.
 * Through HTTP: test/reliability/engine-deadline.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { apiServerTimeoutMs, reviewDeadlineMs } from '../../src/server/api-timeout.js';

describe('apiServerTimeoutMs', () => {
  it('reads what client-go writes (time.Duration.String of whole seconds) and any Go duration', () => {
    expect(apiServerTimeoutMs('10s')).toBe(10_000);
    expect(apiServerTimeoutMs('30s')).toBe(30_000);
    expect(apiServerTimeoutMs('1m0s')).toBe(60_000);
    expect(apiServerTimeoutMs('1.5s')).toBe(1500);
    expect(apiServerTimeoutMs('600ms')).toBe(600);
  });

  it('ignores what is absent, not a duration, or not positive', () => {
    for (const text of [undefined, '', 'soon', '10', '0s', '-5s', '10 s']) expect(apiServerTimeoutMs(text)).toBeUndefined();
  });
});

describe('reviewDeadlineMs', () => {
  it('is the configured deadline when the API server said nothing', () => {
    expect(reviewDeadlineMs(8000, undefined, 5)).toBe(8000);
  });

  it('fits the timeout as webhook-config does (80 %, at least 500 ms before it), less the time already spent', () => {
    expect(reviewDeadlineMs(8000, 10_000, 0)).toBe(8000); // the defaults fit each other
    expect(reviewDeadlineMs(8000, 10_000, 120)).toBe(7880);
    expect(reviewDeadlineMs(8000, 5000, 0)).toBe(4000);
    expect(reviewDeadlineMs(8000, 2000, 10)).toBe(1490);
    expect(reviewDeadlineMs(8000, 1000, 0)).toBe(500);
    expect(reviewDeadlineMs(2000, 30_000, 0)).toBe(2000); // never longer than configured
  });

  it('leaves at least a millisecond: a review with no time left is answered by its policies failurePolicy', () => {
    expect(reviewDeadlineMs(8000, 1000, 800)).toBe(1);
    expect(reviewDeadlineMs(8000, 400, 0)).toBe(1);
  });
});
