export * from './insert-task-versions';
export * from './list-task-versions';
