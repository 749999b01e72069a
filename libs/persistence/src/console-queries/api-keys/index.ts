export * from './revoke-owner-keys';
export * from './api-keys';
export * from './find-presented-api-key';
export { credentialChanges } from './credential-changes';
