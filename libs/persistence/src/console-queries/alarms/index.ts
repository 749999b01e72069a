export * from './count-open-alarms';
export * from './ack-alarm';
export * from './alarms-published-since';
export * from './find-alarm';
export * from './list-alarms';
export * from './find-alarms-by-stable-id';
