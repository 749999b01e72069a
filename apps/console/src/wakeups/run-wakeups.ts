/** Injection token of the console's RunWakeups (@baton/messaging): in-process in embedded mode, EngineWakeups otherwise. */
export const RUN_WAKEUPS = Symbol('baton.console.run-wakeups');
