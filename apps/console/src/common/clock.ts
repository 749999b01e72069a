// The clock is shared by every app; it lives in the domain library.
export { CLOCK, ManualClock, systemClock } from '@baton/domain';
export type { Clock } from '@baton/domain';
