/**
 * The list the server's long-lived queues are linked through (src/adapters/linked-list.ts): insertion
 * order, an item moved to the end, taken out of the list it is in (and only that one), links cleared.
 */
import { describe, expect, it } from 'vitest';
import { holderOf, LinkedList, type Holder, type Linked } from '../../src/adapters/linked-list.js';

interface Item extends Linked<Item> {
  name: string;
}

const item = (name: string): Item => ({ name, previous: undefined, next: undefined, list: undefined });

function names(list: LinkedList<Item>): string[] {
  const seen: string[] = [];
  for (let at = list.first; at; at = at.next) seen.push(at.name);
  // Walked backwards too: both directions must agree.
  const back: string[] = [];
  for (let at = list.last; at; at = at.previous) back.unshift(at.name);
  expect(back).toEqual(seen);
  return seen;
}

describe('LinkedList', () => {
  it('keeps insertion order; appending an item again moves it to the end', () => {
    const list = new LinkedList<Item>();
    const [a, b, c] = ['a', 'b', 'c'].map(item);
    for (const x of [a, b, c]) list.append(x);
    expect(names(list)).toEqual(['a', 'b', 'c']);
    list.append(a);
    expect(names(list)).toEqual(['b', 'c', 'a']);
    list.append(a); // already last
    expect(names(list)).toEqual(['b', 'c', 'a']);
  });

  it('takes out the first, a middle and the last item, and clears their links', () => {
    const list = new LinkedList<Item>();
    const items = ['a', 'b', 'c', 'd', 'e'].map(item);
    for (const x of items) list.append(x);
    const [a, , c, , e] = items;
    for (const x of [c, a, e]) {
      list.remove(x);
      expect([x.previous, x.next, x.list]).toEqual([undefined, undefined, undefined]);
    }
    expect(names(list)).toEqual(['b', 'd']);
    list.remove(a); // not in it any more: nothing happens
    expect(names(list)).toEqual(['b', 'd']);
    for (const x of items) list.remove(x);
    expect(names(list)).toEqual([]);
    expect([list.first, list.last]).toEqual([undefined, undefined]);
    list.append(c); // emptied, then used again
    expect(names(list)).toEqual(['c']);
  });

  it('moves an item from one list to another; removing it from a list it is not in leaves both alone', () => {
    const idle = new LinkedList<Item>();
    const fresh = new LinkedList<Item>();
    const [a, b, c] = ['a', 'b', 'c'].map(item);
    idle.append(a);
    idle.append(b);
    fresh.append(c);
    fresh.append(a);
    expect(names(idle)).toEqual(['b']);
    expect(names(fresh)).toEqual(['c', 'a']);
    expect(a.list).toBe(fresh);
    idle.remove(a);
    expect(names(fresh)).toEqual(['c', 'a']);
    expect(names(idle)).toEqual(['b']);
  });

  it('lists values that cannot carry links through holders, one per list; items() is a copy to act on', () => {
    const socket = { destroyed: false };
    const all = new LinkedList<Holder<typeof socket>>();
    const unused = new LinkedList<Holder<typeof socket>>();
    const inAll = holderOf(socket);
    const inUnused = holderOf(socket);
    all.append(inAll);
    unused.append(inUnused);
    unused.append(holderOf({ destroyed: false }));
    // Taking each one out while going through the copy leaves nothing behind and skips nothing.
    const seen = unused.items();
    for (const entry of seen) {
      entry.value.destroyed = true;
      unused.remove(entry);
    }
    expect(seen.map((e) => e.value.destroyed)).toEqual([true, true]);
    expect([unused.first, unused.last]).toEqual([undefined, undefined]);
    expect(all.items().map((e) => e.value)).toEqual([socket]);
  });
});
