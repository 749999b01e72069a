/**
 * An engine whose heartbeat is older than this does not count as serving its groups: it is dying,
 * stalled, or gone without saying (an engine beats every BATON_HEARTBEAT_MS, 2 s by default, and
 * the others of its groups take its runs over after BATON_ENGINE_DEAD_AFTER_MS, 8 s by default).
 */
export const ENGINE_SILENT_MS = 10_000;

/** An engine UP whose last heartbeat is less than ENGINE_SILENT_MS old at `now`. */
export function isLiveEngine(engine: { state: string; heartbeatAt: number }, now: number): boolean {
  return engine.state === 'UP' && now - engine.heartbeatAt < ENGINE_SILENT_MS;
}

/** How many of these engine rows (engine_nodes, `groups` as stored: a comma list) are live engines serving `group`. */
export function liveEnginesOf(engines: ReadonlyArray<{ groups: string; state: string; heartbeatAt: number }>, group: string, now: number): number {
  return engines.filter((e) => isLiveEngine(e, now) && engineGroupsOf(e.groups).includes(group)).length;
}

/** engine_nodes.groups (a comma list) as names. */
export function engineGroupsOf(stored: string): string[] {
  return stored
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g.length > 0);
}
