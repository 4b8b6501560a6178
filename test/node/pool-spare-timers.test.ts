/**
 * The spare worker's rules (src/adapters/pool/spare.ts) on fake timers: which sets the busy workers serve, a
 * start check `delayMs` later (one pending at a time), a stop `idleMs` after the spare's last review unless
 * it takes another; how long it runs a review before moving it off.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setsServed, SpareLeash, SpareTimers } from '../../src/adapters/pool/spare.js';

describe('setsServed', () => {
  it('names the sets of the reviews in progress only when every worker has one', () => {
    expect(setsServed(['clusters/a', 'clusters/a'])).toEqual(new Set(['clusters/a']));
    expect(setsServed(['default'])).toEqual(new Set(['default']));
    expect(setsServed(['clusters/a', 'clusters/b'])).toEqual(new Set(['clusters/a', 'clusters/b']));
    expect(setsServed(['clusters/a', undefined])).toBeUndefined();
    expect(setsServed([])).toBeUndefined();
  });
});

describe('SpareLeash', () => {
  it('is half of heldMs after a review moved off, and whole again after one ended in time', () => {
    const leash = new SpareLeash(500);
    expect(leash.currentMs).toBe(500);
    const seen = [1, 2, 3].map(() => (leash.movedOff(), leash.currentMs));
    expect(seen).toEqual([250, 250, 250]);
    leash.ended();
    expect(leash.currentMs).toBe(500);
  });
});

describe('SpareTimers', () => {
  let timers: SpareTimers;
  let events: string[];
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    timers = new SpareTimers({ afterMs: 100, heldMs: 500, idleMs: 1_000 });
    events = [];
  });
  afterEach(() => {
    timers.close();
    vi.useRealTimers();
  });

  it('checks delayMs later, one check pending at a time', () => {
    timers.armStart(100, () => events.push('check'));
    timers.armStart(10, () => events.push('second check'));
    expect(timers.startPending).toBe(true);
    vi.advanceTimersByTime(99);
    expect(events).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(events).toEqual(['check']);
    expect(timers.startPending).toBe(false);
    timers.armStart(300, () => events.push('check again'));
    vi.advanceTimersByTime(300);
    expect(events).toEqual(['check', 'check again']);
  });

  it('stops the spare idleMs after its last review unless it takes another', () => {
    timers.armStop(() => events.push('stop'));
    vi.advanceTimersByTime(900);
    timers.keep();
    vi.advanceTimersByTime(1_000);
    expect(events).toEqual([]);
    timers.armStop(() => events.push('stop'));
    vi.advanceTimersByTime(999);
    expect(events).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(events).toEqual(['stop']);
  });

  it('leaves nothing pending once closed', () => {
    timers.armStart(100, () => events.push('start'));
    timers.armStop(() => events.push('stop'));
    timers.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});
