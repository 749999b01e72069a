import type { EngineNodeRow } from '@baton/persistence';

/**
 * Refusal to start: in embedded mode (SQLite) another engine is alive on the same database, or
 * (any mode) this node id is in use by a live process.
 */
export class EngineAlreadyRunningError extends Error {
  readonly code = 'ENGINE_ALREADY_RUNNING';

  /** The engine holding the place, without its wake key (a secret: an error is logged whole). */
  readonly other: Omit<EngineNodeRow, 'wakeKey'>;

  constructor(
    holder: EngineNodeRow,
    readonly silentMs: number,
    reason: 'embedded' | 'same-id',
  ) {
    const { wakeKey: _secret, ...other } = holder;
    const who = `engine node "${other.id}" (host ${other.host}, pid ${other.pid}, ${other.url}) is UP, last heartbeat ${silentMs} ms ago`;
    super(
      reason === 'embedded'
        ? `Embedded mode (SQLite) runs one engine only: ${who}. Stop that engine first, or use a MySQL/MariaDB database ` +
            `(BATON_DB_URL=mysql://…) to run several engines as a cluster.`
        : `Node id "${other.id}" is in use: ${who}. Give each engine its own BATON_ENGINE_ID (or leave it unset).`,
    );
    this.name = 'EngineAlreadyRunningError';
    this.other = other;
  }
}
