export * from './task.mapper';
