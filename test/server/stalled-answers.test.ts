/**
 * Answers a client does not take (src/adapters/node-slow-requests.ts): the oldest answer whose connection
 * has handed nothing to the network for a second is the one ended to make room (at the request cap, or
 * for the body budget); an answer its client is reading, however slowly, is not (a large reply over a slow
 * link moves). Bytes still in a socket's own buffer do not count as moved. The clock is faked.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SlowRequests } from '../../src/adapters/node-slow-requests.js';
import type { IncomingRequest } from '../../src/adapters/node-request.js';

/** An HTTP/1.1 request whose socket counts bytes as Node's does (`bytesWritten` includes its buffer). */
function fakeRequest() {
  const socket = { bytesWritten: 0, writableLength: 0, destroyed: false, destroy: () => (socket.destroyed = true) };
  return { incoming: { httpVersionMajor: 1, socket } as unknown as IncomingRequest, socket };
}

beforeEach(() => vi.useFakeTimers({ toFake: ['performance', 'setInterval', 'clearInterval', 'Date'] }));
afterEach(() => vi.useRealTimers());

describe('stalled answers', () => {
  it('ends the one whose connection has not moved for a second, and leaves the one being read', () => {
    const requests = new SlowRequests();
    const reading = fakeRequest();
    const stalled = fakeRequest();
    requests.answered(reading.incoming);
    requests.answered(stalled.incoming);
    // Both handed 8 MiB to their sockets; only the reader's drains, a little at a time.
    for (const r of [reading, stalled]) {
      r.socket.bytesWritten = 8 * 2 ** 20;
      r.socket.writableLength = 8 * 2 ** 20;
    }
    vi.advanceTimersByTime(600);
    expect(requests.endStalledAnswer()).toBe(false); // nothing a second old yet
    reading.socket.writableLength -= 64 * 1024;
    vi.advanceTimersByTime(600);
    expect(requests.endStalledAnswer()).toBe(true);
    expect(stalled.socket.destroyed).toBe(true);
    expect(reading.socket.destroyed).toBe(false);
    // The reader, still moving a second later, is still left be; once it stops, it is ended too.
    reading.socket.writableLength -= 64 * 1024;
    vi.advanceTimersByTime(1100);
    expect(requests.endStalledAnswer()).toBe(false);
    vi.advanceTimersByTime(1100);
    expect(requests.endStalledAnswer()).toBe(true);
    expect(reading.socket.destroyed).toBe(true);
  });

  it('ends an answer not taken within the write timeout, moving or not', () => {
    const requests = new SlowRequests(5000);
    const reading = fakeRequest();
    requests.answered(reading.incoming);
    reading.socket.bytesWritten = 2 ** 20;
    for (let t = 0; t < 4; t++) {
      reading.socket.bytesWritten += 1024;
      vi.advanceTimersByTime(1000);
    }
    expect(reading.socket.destroyed).toBe(false);
    vi.advanceTimersByTime(2000);
    expect(reading.socket.destroyed).toBe(true);
    requests.stop();
  });

  it('forgets an answer once its response closed', () => {
    const requests = new SlowRequests();
    const done = fakeRequest();
    requests.answered(done.incoming);
    requests.closed(done.incoming);
    vi.advanceTimersByTime(5000);
    expect(requests.endStalledAnswer()).toBe(false);
    expect(done.socket.destroyed).toBe(false);
  });

  it('keeps the others in order when answers close out of order, and moves one that moved behind them', () => {
    const requests = new SlowRequests();
    const [a, b, c, d] = [fakeRequest(), fakeRequest(), fakeRequest(), fakeRequest()];
    for (const r of [a, b, c, d]) requests.answered(r.incoming);
    requests.closed(b.incoming); // from the middle
    requests.closed(d.incoming); // the last
    requests.closed(d.incoming); // twice: nothing more
    vi.advanceTimersByTime(1100);
    a.socket.bytesWritten += 32 * 1024; // a moved: looked at again a second from now, behind c
    expect(requests.endStalledAnswer()).toBe(true);
    expect([a, b, c, d].map((r) => r.socket.destroyed)).toEqual([false, false, true, false]);
    expect(requests.endStalledAnswer()).toBe(false);
    vi.advanceTimersByTime(1100);
    expect(requests.endStalledAnswer()).toBe(true);
    expect(a.socket.destroyed).toBe(true);
    expect(requests.endStalledAnswer()).toBe(false);
    // A new answer after the list emptied is listed again.
    const e = fakeRequest();
    requests.answered(e.incoming);
    vi.advanceTimersByTime(1100);
    expect(requests.endStalledAnswer()).toBe(true);
    expect(e.socket.destroyed).toBe(true);
  });

  it('ends at the write timeout only the answers past it, wherever they are in the list', () => {
    const requests = new SlowRequests(5000);
    const first = fakeRequest();
    requests.answered(first.incoming);
    vi.advanceTimersByTime(1500);
    // Moving: looked at (by the cap) and put behind the later answers, yet still the oldest written.
    first.socket.bytesWritten += 32 * 1024;
    const later = fakeRequest();
    requests.answered(later.incoming);
    expect(requests.endStalledAnswer()).toBe(false);
    vi.advanceTimersByTime(3600);
    expect(first.socket.destroyed).toBe(true);
    expect(later.socket.destroyed).toBe(false);
    // Written at 1.5 s: ended by the first sweep past 6.5 s (a sweep a second).
    vi.advanceTimersByTime(1400);
    expect(later.socket.destroyed).toBe(false);
    vi.advanceTimersByTime(500);
    expect(later.socket.destroyed).toBe(true);
    requests.stop();
  });
});
