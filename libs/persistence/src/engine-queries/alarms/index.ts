export * from './insert-engine-down-alarms';
export * from './insert-alarm';
export * from './find-alarm-to-count-into';
export * from './add-alarm-counts';
export * from './alarm-outbox';
export * from './read-alarm-outbox-backlog';
export * from './refresh-alarm-text';
