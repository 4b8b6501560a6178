/**
 * The spare worker's rules (src/adapters/pool/spare.ts) on fake timers: which sets the busy workers serve, a
 * start only when it is still needed `afterMs` later (one pending at a time), a stop `idleMs` after the
 * spare's last review unless it takes another.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setsServed, SpareTimers } from '../../src/adapters/pool/spare.js';

describe('setsServed', () => {
  it('names the sets of the reviews in progress only when every worker has one', () => {
    expect(setsServed(['clusters/a', 'clusters/a'])).toEqual(new Set(['clusters/a']));
    expect(setsServed(['default'])).toEqual(new Set(['default']));
    expect(setsServed(['clusters/a', 'clusters/b'])).toEqual(new Set(['clusters/a', 'clusters/b']));
    expect(setsServed(['clusters/a', undefined])).toBeUndefined();
    expect(setsServed([])).toBeUndefined();
  });
});

describe('SpareTimers', () => {
  let timers: SpareTimers;
  let events: string[];
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    timers = new SpareTimers({ afterMs: 100, idleMs: 1_000 });
    events = [];
  });
  afterEach(() => {
    timers.close();
    vi.useRealTimers();
  });

  it('starts after afterMs if still needed, and not if the need passed', () => {
    let needed = true;
    timers.armStart(() => needed, () => events.push('start'));
    timers.armStart(() => needed, () => events.push('second start'));
    vi.advanceTimersByTime(99);
    expect(events).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(events).toEqual(['start']);
    timers.armStart(() => needed, () => events.push('start again'));
    needed = false;
    vi.advanceTimersByTime(100);
    expect(events).toEqual(['start']);
    // Not needed when asked: nothing is armed.
    timers.armStart(() => needed, () => events.push('never'));
    needed = true;
    vi.advanceTimersByTime(1_000);
    expect(events).toEqual(['start']);
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
    timers.armStart(() => true, () => events.push('start'));
    timers.armStop(() => events.push('stop'));
    timers.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});
