export * from './delete-down-executor';
