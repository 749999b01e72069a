export * from './delete-down-executor';
export * from './find-executors';
export * from './tenant-app-names';
