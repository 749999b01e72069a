export * from './coalescer';
export * from './group-commit';
