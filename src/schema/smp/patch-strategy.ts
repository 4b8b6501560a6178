/** A field's patch strategy (`merge`, `merge,retainKeys`, `retainKeys`, `replace`) includes `merge`. */
const MERGE_STRATEGY = /(?:^|,)merge(?:,|$)/;
/** MERGE_STRATEGY's answers by strategy text (a schema has a handful of distinct texts). */
const merging = new Map<string, boolean>();

/** Does a field with this patch strategy merge its lists (by key, or as a union of scalars)? */
export function mergesLists(patchStrategy: string): boolean {
  let merges = merging.get(patchStrategy);
  if (merges === undefined) {
    merges = MERGE_STRATEGY.test(patchStrategy);
    if (merging.size < 64) merging.set(patchStrategy, merges);
  }
  return merges;
}
