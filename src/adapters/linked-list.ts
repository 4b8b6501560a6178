/**
 * An insertion-ordered list whose items carry their own links: adding, moving and taking out an item
 * allocate nothing. The server's long-lived collections (idle connections, answers not yet taken, open
 * sockets) gain and lose an entry per request or connection; as a Map or Set they cost V8 a new table
 * each time they grow or shrink, and a long-lived table's new ones are allocated in the old generation,
 * so that under load the main thread filled its old generation with dead tables (a full collection every
 * ~2 s) and its young collections kept whole requests alive through the old tables' keys
 * (bench/JOURNAL.md, "Stop 48's run", "Stop 49's run").
 */

/** What an item of a LinkedList carries; it is in one list at most. */
export interface Linked<T extends Linked<T>> {
  previous: T | undefined;
  next: T | undefined;
  /** The list it is in; undefined when in none. */
  list: LinkedList<T> | undefined;
}

export class LinkedList<T extends Linked<T>> {
  /** The item added longest ago (moving an item makes it the newest). */
  first: T | undefined;
  last: T | undefined;

  /** Adds `item` at the end, taking it out of the list it was in (this one included). */
  append(item: T): void {
    item.list?.remove(item);
    item.previous = this.last;
    if (this.last) this.last.next = item;
    else this.first = item;
    this.last = item;
    item.list = this;
  }

  /** The items now in the list, first to last (a copy: what is done to them may take them out). */
  items(): T[] {
    const items: T[] = [];
    for (let item = this.first; item; item = item.next) items.push(item);
    return items;
  }

  /** Takes `item` out, its links cleared (an item taken out keeps no neighbour alive); nothing if it is not in this list. */
  remove(item: T): void {
    if (item.list !== this) return;
    if (item.previous) item.previous.next = item.next;
    else this.first = item.next;
    if (item.next) item.next.previous = item.previous;
    else this.last = item.previous;
    item.previous = item.next = item.list = undefined;
  }
}

/** An item for a value that does not carry links itself (a Node socket, which may be in several lists). */
export interface Holder<V> extends Linked<Holder<V>> {
  readonly value: V;
}

export function holderOf<V>(value: V): Holder<V> {
  return { value, previous: undefined, next: undefined, list: undefined };
}
