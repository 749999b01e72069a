export * from './insert-engine-down-alarms';
export * from './insert-alarm';
export * from './collapse-alarm';
export * from './alarm-outbox';
export * from './read-alarm-outbox-backlog';
