/**
 * The body budget (src/server/body-budget.ts): bytes of request bodies held at once. Requests take their
 * bytes before reading, wait their turn when the budget is full, and are refused after waiting as long as
 * they may; one larger than the whole budget is taken alone.
 */
import { describe, expect, it } from 'vitest';
import { BodyBudget, LightClientSignal } from '../../src/server/index.js';

const MiB = 2 ** 20;

describe('BodyBudget', () => {
  it('takes bytes at once while they fit, and gives them back', () => {
    const budget = new BodyBudget(16 * MiB);
    expect(budget.tryTake(6 * MiB)).toBe(true);
    expect(budget.tryTake(6 * MiB)).toBe(true);
    expect(budget.heldBytes).toBe(12 * MiB);
    // Large bodies hold three quarters of the budget at most: the rest is kept for small ones.
    expect(budget.tryTake(1 * MiB)).toBe(false);
    expect(budget.tryTake(64 * 1024)).toBe(true);
    budget.give(4 * MiB);
    expect(budget.tryTake(3 * MiB)).toBe(true);
    expect(budget.heldBytes).toBe(11 * MiB + 64 * 1024);
  });

  it('keeps a quarter of the budget for small bodies, which pass large ones waiting', async () => {
    const budget = new BodyBudget(16 * MiB);
    // Large bodies declared and not yet arrived hold their share, and one more waits.
    expect(budget.tryTake(12 * MiB)).toBe(true);
    const order: string[] = [];
    const large = budget.take(2 * MiB, 10_000).then((taken) => order.push(`large ${taken}`));
    // Small ones are taken at once, past the large one waiting, until the quarter is held too.
    for (let i = 0; i < 64; i++) expect(budget.tryTake(64 * 1024)).toBe(true);
    expect(budget.heldBytes).toBe(16 * MiB);
    const small = budget.take(64 * 1024, 10_000).then((taken) => order.push(`small ${taken}`));
    // A small one waiting holds the small ones behind it (first come, first served among them).
    expect(budget.tryTake(1)).toBe(false);
    budget.give(64 * 1024);
    await small;
    expect(order).toEqual(['small taken']);
    // The large one fits once the large share has room: everything held counts against it.
    budget.give(2 * MiB);
    await Promise.resolve();
    expect(order).toEqual(['small taken']);
    budget.give(10 * MiB);
    await large;
    expect(order).toEqual(['small taken', 'large taken']);
    expect(budget.waiting).toBe(0);
  });

  it('takes a body larger than the whole budget when nothing else is held, and only then', () => {
    const budget = new BodyBudget(MiB);
    expect(budget.tryTake(100)).toBe(true);
    expect(budget.tryTake(5 * MiB)).toBe(false);
    budget.give(100);
    expect(budget.tryTake(5 * MiB)).toBe(true);
    expect(budget.tryTake(1)).toBe(false);
  });

  it('serves those waiting first come, first served, as bytes are given back', async () => {
    const budget = new BodyBudget(16 * MiB);
    expect(budget.tryTake(12 * MiB)).toBe(true);
    const order: string[] = [];
    const big = budget.take(8 * MiB, 10_000).then((taken) => order.push(`big ${taken}`));
    const other = budget.take(1 * MiB, 10_000).then((taken) => order.push(`other ${taken}`));
    expect(budget.waiting).toBe(2);
    // A newcomer that would fit does not pass those waiting.
    expect(budget.tryTake(1 * MiB)).toBe(false);
    budget.give(6 * MiB);
    await Promise.resolve();
    expect(order).toEqual([]); // 6 + 8 > 12, the large share: the first in line still waits, and the one behind it too
    budget.give(6 * MiB);
    await Promise.all([big, other]);
    expect(order).toEqual(['big taken', 'other taken']);
    expect(budget.heldBytes).toBe(9 * MiB);
    expect(budget.waiting).toBe(0);
  });

  it('refuses a request that waited as long as it may, takes nothing for it, and counts it', async () => {
    const budget = new BodyBudget(MiB);
    budget.tryTake(MiB);
    expect(await budget.take(MiB, 20)).toBe('timed-out');
    expect(budget.refused).toBe(1);
    expect(budget.waiting).toBe(0);
    budget.give(MiB);
    expect(budget.heldBytes).toBe(0);
  });

  it('drops a request whose client went away, and the ones behind it move up', async () => {
    const budget = new BodyBudget(16 * MiB);
    budget.tryTake(8 * MiB);
    const client = new LightClientSignal();
    const first = budget.take(8 * MiB, 10_000, client);
    const second = budget.take(4 * MiB, 10_000);
    client.abort();
    expect(await first).toBe('client-gone');
    // The one that held the line left: 8 + 4 fits the large share.
    expect(await second).toBe('taken');
    expect(budget.heldBytes).toBe(12 * MiB);
    expect(budget.refused).toBe(0);
  });

  it('does not wait for a client already gone', async () => {
    const budget = new BodyBudget(MiB);
    budget.tryTake(MiB);
    const client = new LightClientSignal();
    client.abort();
    expect(await budget.take(1, 10_000, client)).toBe('client-gone');
    expect(budget.waiting).toBe(0);
  });

  it('refuses at once, and counts, a request when as many as it allows wait already; one more waits once one of them is served', async () => {
    const budget = new BodyBudget(MiB, 2);
    budget.tryTake(MiB);
    const waiting = [budget.take(MiB, 10_000), budget.take(MiB, 10_000)];
    expect(await budget.take(1, 10_000)).toBe('too-many-waiting');
    expect(budget.refused).toBe(1);
    expect(budget.waiting).toBe(2);
    budget.give(MiB);
    expect(await waiting[0]).toBe('taken');
    const later = budget.take(1, 10_000);
    expect(budget.waiting).toBe(2);
    budget.give(MiB);
    expect(await waiting[1]).toBe('taken');
    budget.give(MiB);
    expect(await later).toBe('taken');
    expect(budget.refused).toBe(1);
  });

  it('refuses a budget that is not a positive number of bytes, or a negative number waiting', () => {
    expect(() => new BodyBudget(0)).toThrow(RangeError);
    expect(() => new BodyBudget(1.5)).toThrow(RangeError);
    expect(() => new BodyBudget(MiB, -1)).toThrow(RangeError);
  });
});
