import type { StoredAlarm } from '../types';

/**
 * A stored alarm's stable id, its `id` on the topic and in socket.io events: the row's uid, or
 * `row-<id>` for rows written before uids existed.
 */
export function stableAlarmId(row: Pick<StoredAlarm, 'id' | 'uid'>): string {
  return row.uid ?? `row-${row.id}`;
}
