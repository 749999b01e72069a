/**
 * Resolves on the next turn of the event loop, after the I/O waiting meanwhile: what a long piece
 * of work on one tenant's input (a backfill's fires and slices) awaits between its parts, so the
 * other tenants' requests are served in between rather than after it.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
