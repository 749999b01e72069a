export * from './find-claim-tenants';
export * from './find-tenants';
