export * from './find-tenant';
export * from './write-tenants';
