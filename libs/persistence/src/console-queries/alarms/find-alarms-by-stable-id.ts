import { In, type EntityManager, type FindOptionsWhere } from 'typeorm';
import { AlarmEntity } from '../../entities';

/** An alarm named by its tenant and its stable id (the `id` of its message: its uid, or `row-<id>`). */
export interface AlarmKey {
  tenantId: string;
  id: string;
}

/**
 * The stored alarms these keys name, each only if it belongs to the key's tenant (an id of tenant
 * B's alarm named with tenant A finds nothing). What the console's alarm gateway pushes for the
 * messages of a burst, in one indexed read:
 *
 *   SELECT * FROM alarms WHERE uid IN (?, …)                                 -- ux_alarms_uid
 *   (OR id IN (?, …) for `row-<id>` keys: rows written before uids existed; primary key)
 *
 * The tenant is matched here rather than in the WHERE: the keys of one burst span tenants.
 */
export async function findAlarmsByStableId(manager: EntityManager, keys: readonly AlarmKey[]): Promise<AlarmEntity[]> {
  const uids = new Set<string>();
  const rowIds = new Set<number>();
  for (const key of keys) {
    const legacy = /^row-(\d{1,15})$/.exec(key.id);
    if (legacy) rowIds.add(Number(legacy[1]));
    else uids.add(key.id);
  }
  const where: Array<FindOptionsWhere<AlarmEntity>> = [];
  if (uids.size > 0) where.push({ uid: In([...uids]) });
  if (rowIds.size > 0) where.push({ id: In([...rowIds]) });
  if (where.length === 0) return [];
  const rows = await manager.find(AlarmEntity, { where });
  const wanted = new Set(keys.map((k) => `${k.tenantId}\n${k.id}`));
  return rows.filter((row) => wanted.has(`${row.tenantId}\n${row.uid ?? `row-${row.id}`}`));
}
