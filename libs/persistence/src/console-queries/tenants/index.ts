export * from './find-tenant';
export * from './write-tenants';
export * from './rotate-executor-secret';
export * from './set-xxl-job-token';
