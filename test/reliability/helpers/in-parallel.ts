/**
 * Runs `work` on each item, in order, at most `width` at once, until `stop()` says enough (a sweep stops
 * at a handful of failures): the driver of the sweeps that keep several connections or runtimes busy.
 */
export async function inParallel<T>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<void>, stop: () => boolean = () => false): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length && !stop()) {
      const i = next++;
      await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
}
