export * from './register-engine-node';
export * from './find-engine-nodes';
export * from './heartbeat-engine-node';
export * from './mark-engine-node-down';
export * from './engine-liveness-locks';
export * from './record-engine-clock-offset';
