/** A publish that cannot be done now: no broker connection, or no receipt in time. */
export class AlarmBusUnavailableError extends Error {
  readonly code = 'ALARM_BUS_UNAVAILABLE';

  constructor(message: string) {
    super(message);
    this.name = 'AlarmBusUnavailableError';
  }
}
