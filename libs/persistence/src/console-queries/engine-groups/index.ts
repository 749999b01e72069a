export * from './engine-groups';
