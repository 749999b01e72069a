export * from './insert-audit-record';
export * from './list-audit-records';
export * from './purge-audit-records';
