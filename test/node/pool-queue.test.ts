/**
 * The review pool's queue (src/adapters/pool/queue.ts), on fake timers.
 * - Under its deadlines: a review that waits past its deadline leaves the queue for `expired`, in order,
 *   and only then; one taken or removed first never does; one put back at the front with an earlier
 *   deadline is not held to a later one.
 * - Between policy sets: each set's reviews are taken in turn with the others', oldest first within a set;
 *   reviews taken back go first; a full queue sheds the newest review of the set with the most waiting,
 *   never one of a set with as few as the newcomer's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WaitingReviews, type Waiting } from '../../src/adapters/pool/queue.js';

interface Review extends Waiting {
  name: string;
}

function review(name: string, dueInMs: number, generation = 1): Review {
  return { name, deadlineAt: performance.now() + dueInMs, setName: 'default', generation };
}

/** Reviews named `<set><i>` (e.g. a1, a2), due in a minute. */
function reviews(setName: string, count: number, generation = 1, from = 1): Review[] {
  return Array.from({ length: count }, (_, i) => ({ name: `${setName}${from + i}`, setName, generation, deadlineAt: performance.now() + 60_000 }));
}

const names = (items: Review[]) => items.map((r) => r.name);

describe('the queue of reviews waiting for a worker', () => {
  let expired: string[];
  let queue: WaitingReviews<Review>;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    expired = [];
    queue = new WaitingReviews<Review>((r) => expired.push(r.name));
  });
  afterEach(() => {
    queue.clear();
    vi.useRealTimers();
  });

  describe('under its deadlines', () => {
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

  describe('between policy sets', () => {
    it('is first in, first out with one set', () => {
      queue.add(reviews('a', 5));
      queue.add(reviews('a', 2, 1, 6));
      expect(names(queue.take(3))).toEqual(['a1', 'a2', 'a3']);
      expect(names(queue.take(8))).toEqual(['a4', 'a5', 'a6', 'a7']);
      expect(queue.length).toBe(0);
    });

    it("takes reviews up to a bound on their bodies' sizes, one larger than it alone, keeping the turn", () => {
      const sized = (name: string, setName: string, bodySize: number): Review => ({ name, setName, generation: 1, bodySize, deadlineAt: performance.now() + 60_000 });
      queue.add([sized('a1', 'a', 400), sized('a2', 'a', 400), sized('a3', 'a', 5000), sized('a4', 'a', 100)]);
      queue.add([sized('b1', 'b', 300), sized('b2', 'b', 100)]);
      expect(names(queue.take(8, undefined, 1000))).toEqual(['a1', 'b1']); // a2 would pass 1000
      expect(names(queue.take(8, undefined, 1000))).toEqual(['a2', 'b2']); // a3 would
      expect(names(queue.take(8, undefined, 1000))).toEqual(['a3']); // alone, larger than the bound
      expect(names(queue.take(8, undefined, 1000))).toEqual(['a4']);
    });

    it("serves a set that arrives behind another's backlog at its next turn, not after the backlog", () => {
      queue.add(reviews('a', 20));
      expect(names(queue.take(2))).toEqual(['a1', 'a2']);
      queue.add(reviews('b', 2));
      // b joined at the end of the turn: a's next review, then b's, then turn about.
      expect(names(queue.take(1))).toEqual(['a3']);
      expect(names(queue.take(1))).toEqual(['b1']);
      expect(names(queue.take(3))).toEqual(['a4', 'b2', 'a5']);
      expect(queue.length).toBe(15);
      expect(queue.waiting('a')).toBe(15);
      expect(queue.waiting('b')).toBe(0);
    });

    it('takes one review from each set in turn into a batch, each set in order', () => {
      queue.add(reviews('a', 4));
      queue.add(reviews('b', 1));
      queue.add(reviews('c', 2));
      expect(names(queue.take(8))).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3', 'a4']);
    });

    it('keeps the turn from one batch to the next', () => {
      queue.add(reviews('a', 3));
      queue.add(reviews('b', 3));
      expect(names(queue.take(3))).toEqual(['a1', 'b1', 'a2']);
      expect(names(queue.take(3))).toEqual(['b2', 'a3', 'b3']);
    });

    it('gives reviews taken back from a worker the front of their sets, served next', () => {
      queue.add(reviews('a', 3));
      queue.add(reviews('b', 3));
      const batch = queue.take(4);
      expect(names(batch)).toEqual(['a1', 'b1', 'a2', 'b2']);
      queue.add(batch.slice(1), true);
      expect(names(queue.take(8))).toEqual(['a2', 'b1', 'a3', 'b2', 'b3']);
      // A set with nothing waiting whose review comes back is served next.
      queue.add(reviews('c', 2));
      queue.add(reviews('a', 1, 1, 9), true);
      expect(names(queue.take(1))).toEqual(['a9']);
    });

    it('puts one version of each set in a batch, and still takes the other sets', () => {
      queue.add([...reviews('a', 2, 1), ...reviews('a', 2, 2, 3)]);
      queue.add(reviews('b', 3));
      expect(names(queue.take(8))).toEqual(['a1', 'b1', 'a2', 'b2', 'b3']);
      expect(names(queue.take(8))).toEqual(['a3', 'a4']);
    });

    it("sheds the newest review of the set with the most waiting for a set with fewer, never a set's own", () => {
      queue.add(reviews('a', 6));
      queue.add(reviews('b', 1));
      expect(queue.shedFor('a')?.name).toBeUndefined();
      expect(queue.shedFor('b')?.name).toBe('a6');
      expect(queue.shedFor('c')?.name).toBe('a5');
      expect(queue.length).toBe(5);
      // Once the newcomer's set would have as many as the longest, nothing is shed for it.
      queue.add(reviews('b', 2, 1, 2));
      expect(queue.waiting('b')).toBe(3);
      expect(queue.shedFor('b')).toBeUndefined();
      expect(queue.shedFor('a')).toBeUndefined();
      expect(queue.shedFor('c')?.name).toBe('a4');
      expect(queue.length).toBe(6);
    });

    it('lets reviews of every set go at their deadlines, earliest first, and keeps the turn', () => {
      const now = performance.now();
      queue.add([
        { name: 'a1', setName: 'a', generation: 1, deadlineAt: now + 300 },
        { name: 'a2', setName: 'a', generation: 1, deadlineAt: now + 900 },
      ]);
      queue.add([{ name: 'b1', setName: 'b', generation: 1, deadlineAt: now + 100 }]);
      queue.add([{ name: 'c1', setName: 'c', generation: 1, deadlineAt: now + 200 }]);
      vi.advanceTimersByTime(350);
      expect(expired).toEqual(['b1', 'c1', 'a1']);
      expect(queue.length).toBe(1);
      expect(names(queue.take(8))).toEqual(['a2']);
      vi.advanceTimersByTime(1_000);
      expect(expired).toEqual(['b1', 'c1', 'a1']);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('removes a review from its set and keeps the turn of the others', () => {
      const [a1, a2] = reviews('a', 2);
      const [b1] = reviews('b', 1);
      queue.add([a1, a2, b1]);
      expect(queue.remove(a1)).toBe(true);
      expect(queue.remove(a2)).toBe(true);
      expect(queue.remove(a2)).toBe(false);
      expect(names(queue.take(8))).toEqual(['b1']);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
