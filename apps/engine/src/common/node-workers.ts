/**
 * Background work of the dispatch side that must run only while the node is registered and
 * working (the watchdog, the alarm outbox relay): the lifecycle starts it after the node is UP and
 * stops it on shutdown with the claim side's loops. EngineModule binds NODE_WORKERS to them.
 */
export interface NodeWorker {
  start(): void;
  stop(): Promise<void>;
}

/** Injection token of the NodeWorker[] the lifecycle starts and stops. */
export const NODE_WORKERS = Symbol('baton.engine.node-workers');
