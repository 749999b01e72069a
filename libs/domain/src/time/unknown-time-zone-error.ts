/** Thrown when trigger math meets a zone that validation should have refused. */
export class UnknownTimeZoneError extends Error {
  readonly code = 'UNKNOWN_TIME_ZONE';

  constructor(readonly timeZone: string) {
    super(`Unknown IANA time zone "${timeZone}"`);
    this.name = 'UnknownTimeZoneError';
  }
}
