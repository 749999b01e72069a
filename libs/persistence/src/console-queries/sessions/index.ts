export * from './sessions';
export * from './login-throttle-rows';
export * from './find-session-user';
