/**
 * A bounded LRU of compiled programs. Keys identify the environment (role, params, variable names and
 * types) and the expression, so one entry serves every policy, reload and cluster that uses the same
 * expression in the same environment.
 */
export interface CacheStats {
  hits: number;
  misses: number;
  size: number;
  capacity: number;
  evictions: number;
}

export class LruCache<V> {
  private readonly map = new Map<string, V>();
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(public capacity: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Refresh recency: re-insert at the end of the insertion order.
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  set(key: string, v: V): void {
    if (this.map.has(key)) this.map.delete(key);
    this.map.set(key, v);
    while (this.map.size > this.capacity) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
      this.evictions++;
    }
  }

  clear(): void {
    this.map.clear();
  }

  stats(): CacheStats {
    return { hits: this.hits, misses: this.misses, size: this.map.size, capacity: this.capacity, evictions: this.evictions };
  }
}
