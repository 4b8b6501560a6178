/**
 * The review pool's queue (src/adapters/pool/queue.ts) under its deadlines, on fake timers: a review that
 * waits past its deadline leaves the queue for `expired`, in order, and only then; one taken or removed
 * first never does; one put back at the front with an earlier deadline is not held to a later one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WaitingReviews, type Waiting } from '../../src/adapters/pool/queue.js';

interface Review extends Waiting {
  name: string;
}

function review(name: string, dueInMs: number, generation = 1): Review {
  return { name, deadlineAt: performance.now() + dueInMs, setName: 'default', generation };
}

describe('the queue of reviews waiting for a worker', () => {
  let expired: string[];
  let queue: WaitingReviews<Review>;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    expired = [];
    queue = new WaitingReviews<Review>((r) => expired.push(r.name));
  });
  afterEach(() => vi.useRealTimers());

  it('lets each review go at its own deadline, in order, and keeps the others', () => {
    queue.add([review('a', 100), review('b', 300)]);
    queue.add([review('c', 200)]);
    vi.advanceTimersByTime(99);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(2);
    expect(expired).toEqual(['a']);
    expect(queue.length).toBe(2);
    vi.advanceTimersByTime(100);
    expect(expired).toEqual(['a', 'c']);
    vi.advanceTimersByTime(100);
    expect(expired).toEqual(['a', 'c', 'b']);
    expect(queue.length).toBe(0);
  });

  it('never expires a review taken or removed before its deadline', () => {
    const kept = review('kept', 100);
    const removed = review('removed', 50);
    queue.add([review('taken', 50), removed, kept]);
    expect(queue.take(1).map((r) => r.name)).toEqual(['taken']);
    expect(queue.remove(removed)).toBe(true);
    expect(queue.remove(removed)).toBe(false);
    vi.advanceTimersByTime(60);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(expired).toEqual(['kept']);
  });

  it('holds a review put back at the front to its own, earlier deadline', () => {
    queue.add([review('late', 1_000)]);
    queue.add([review('back', 100)], true);
    vi.advanceTimersByTime(101);
    expect(expired).toEqual(['back']);
    expect(queue.take(8).map((r) => r.name)).toEqual(['late']);
    vi.advanceTimersByTime(2_000);
    expect(expired).toEqual(['back']);
  });

  it('keeps no timer once empty, and starts one again for the next review', () => {
    queue.add([review('a', 100)]);
    queue.clear();
    expect(vi.getTimerCount()).toBe(0);
    queue.add([review('b', 50)]);
    vi.advanceTimersByTime(51);
    expect(expired).toEqual(['b']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
