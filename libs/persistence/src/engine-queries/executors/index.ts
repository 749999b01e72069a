export * from './find-up-executors';
export * from './record-executor-heartbeat';
export * from './find-silent-executors';
export * from './mark-executor-down';
export * from './mark-executor-stopped';
export * from './refresh-executor-heartbeat';
export * from './bump-executor-hand-backs';
