export * from './claim-due-tasks';
export * from './advance-planned-tasks';
export * from './lock-task-for-concurrency';
export * from './schedule-fixed-delay';
export * from './pause-failing-task';
export * from './any-task-due';
export * from './insert-task-versions';
export * from './read-least-start-deadline';
