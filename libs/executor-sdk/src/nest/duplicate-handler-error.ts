/**
 * Two handlers of one executor have the same name: the app refuses to start, naming both
 * places (a provider's method or class decorated with @BatonHandler, or an entry of the
 * module's `handlers` option), so the one to rename is plain.
 */
export class DuplicateHandlerError extends Error {
  readonly code = 'DUPLICATE_HANDLER';

  constructor(
    readonly handler: string,
    readonly places: readonly [string, string],
  ) {
    super(`two executor handlers are named "${handler}": ${places[0]} and ${places[1]}`);
    this.name = 'DuplicateHandlerError';
  }
}
