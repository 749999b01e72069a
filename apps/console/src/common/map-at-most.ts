/**
 * Calls `job` for every item, at most `limit` at once, and answers the results in the items'
 * order. A slow item holds one of the `limit` places while the others go on through the rest:
 * unlike slices awaited one after another, where it held its whole slice.
 */
export async function mapAtMost<T, R>(items: readonly T[], limit: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
