export * from './find-event';
export * from './find-event-subscribers';
export * from './insert-events';
export * from './list-events';
export * from './set-event-run-ids';
