export * from './find-tenant';
