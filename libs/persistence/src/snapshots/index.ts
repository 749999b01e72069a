export * from './table-snapshot';
