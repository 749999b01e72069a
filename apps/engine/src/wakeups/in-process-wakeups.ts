/** Injection token of the InProcessWakeups (@baton/messaging) an embedded console shares with its engine; absent otherwise. */
export const IN_PROCESS_WAKEUPS = Symbol('baton.engine.in-process-wakeups');
