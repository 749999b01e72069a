export * from './sessions';
export * from './login-throttle-rows';
