export * from './checking-lookup';
export * from './outbound-post';
export * from './url-refusal';
