export * from './revoke-owner-keys';
export * from './api-keys';
