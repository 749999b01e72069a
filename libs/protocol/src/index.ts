export * from './messages';
export * from './signing';
export * from './error-body';
export * from './json-depth';
export * from './error-text';
export * from './outbound';
export * from './retry-after';
export * from './xxl-job';
