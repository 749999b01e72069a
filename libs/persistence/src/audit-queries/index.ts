export * from './insert-audit-record';
export * from './list-audit-records';
