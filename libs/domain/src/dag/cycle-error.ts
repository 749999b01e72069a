/**
 * Saving a dependency edge would close a cycle. `cycle` lists the task names along it, first
 * name repeated at the end (['a', 'b', 'c', 'a']); the message names it the way the console
 * shows it, "a → b → c → a", so the admin sees which edge to drop.
 */
export class CycleError extends Error {
  readonly code = 'DEPENDENCY_CYCLE';
  constructor(readonly cycle: readonly string[]) {
    super(`Dependency cycle: ${cycle.join(' → ')}`);
    this.name = 'CycleError';
  }
}
