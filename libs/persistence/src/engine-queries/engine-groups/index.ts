export * from './insert-missing-engine-group';
