/**
 * The light signal the Node server's requests offer the review route instead of an AbortSignal
 * (src/server/client-signal.ts): it behaves as an AbortSignal does for what reviewers use of one.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientSignalOf, LightClientSignal } from '../../src/server/client-signal.js';

afterEach(() => vi.restoreAllMocks());

describe('LightClientSignal', () => {
  it('reads aborted once aborted, and calls each listener once', () => {
    const signal = new LightClientSignal();
    const calls: string[] = [];
    const first = () => calls.push('first');
    const second = () => calls.push('second');
    signal.addEventListener('abort', first);
    signal.addEventListener('abort', first, { once: true });
    signal.addEventListener('abort', second);
    expect(signal.aborted).toBe(false);
    signal.abort();
    signal.abort();
    expect(signal.aborted).toBe(true);
    expect(calls).toEqual(['first', 'second']);
  });

  it('does not call a listener removed before the abort, nor one added after it', () => {
    const signal = new LightClientSignal();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    signal.removeEventListener('abort', () => calls.push('never added'));
    signal.abort();
    signal.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual([]);
  });

  it('behaves as an AbortSignal does in the same steps', () => {
    const steps = (signal: { addEventListener: LightClientSignal['addEventListener']; removeEventListener: LightClientSignal['removeEventListener'] }, abort: () => void): string[] => {
      const calls: string[] = [];
      const a = () => calls.push('a');
      const b = () => calls.push('b');
      signal.addEventListener('abort', a);
      signal.addEventListener('abort', b);
      signal.addEventListener('abort', a);
      signal.removeEventListener('abort', b);
      signal.addEventListener('abort', b);
      abort();
      abort();
      signal.addEventListener('abort', () => calls.push('late'));
      return calls;
    };
    const controller = new AbortController();
    const light = new LightClientSignal();
    expect(steps(light, () => light.abort())).toEqual(steps(controller.signal, () => controller.abort()));
  });

  it('runs every listener when one throws, and throws its error again outside the abort', () => {
    const rethrown: (() => void)[] = [];
    vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => void rethrown.push(task));
    const signal = new LightClientSignal();
    const calls: string[] = [];
    signal.addEventListener('abort', () => {
      throw new Error('listener fault');
    });
    signal.addEventListener('abort', () => calls.push('after'));
    expect(() => signal.abort()).not.toThrow();
    expect(calls).toEqual(['after']);
    expect(rethrown).toHaveLength(1);
    expect(() => rethrown[0]()).toThrow('listener fault');
  });
});

describe('clientSignalOf', () => {
  it("is a request's AbortSignal unless its adapter offers a light signal", () => {
    const plain = new Request('http://x/mutate', { method: 'POST', body: '{}' });
    expect(clientSignalOf(plain)).toBe(plain.signal);
    const light = new LightClientSignal();
    const offering = Object.assign(new Request('http://x/mutate', { method: 'POST', body: '{}' }), { clientSignal: light });
    expect(clientSignalOf(offering)).toBe(light);
  });
});
