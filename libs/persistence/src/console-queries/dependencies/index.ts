export * from './task-edges';
export * from './edges';
