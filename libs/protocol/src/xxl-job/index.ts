export * from './messages';
export * from './log-id';
export * from './trigger-param';
export * from './callback-of';
export * from './log-lines';
