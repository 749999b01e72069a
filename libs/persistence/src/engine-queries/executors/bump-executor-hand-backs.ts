import type { EntityManager } from 'typeorm';
import { execute } from '../sql';

/**
 * Before an engine hands back the runs sent ahead to a silent executor (protocol 3), it moves the
 * executor's hand-back count, under the row's lock, in a transaction of its own:
 *
 *   UPDATE executors SET hand_backs = hand_backs + 1
 *    WHERE id = ? AND state = 'DOWN' AND stopped_at IS NULL AND protocol_version >= ?
 *
 * A heartbeat writes the row too (recordExecutorHeartbeat) and reads hand_backs after its write,
 * so once this commits, every later heartbeat's ack says the count changed and the executor drops
 * what it holds for later instants; every earlier one is in heartbeat_at, which the hand-back reads
 * after this commit. False when the executor is not DOWN (it came back meanwhile), stopped
 * gracefully, or does not keep the lease: nothing may be handed back.
 */
export async function bumpExecutorHandBacks(manager: EntityManager, input: { executorId: number; minProtocol: number }): Promise<boolean> {
  const { affected } = await execute(
    manager,
    `UPDATE executors SET hand_backs = hand_backs + 1 WHERE id = ? AND state = 'DOWN' AND stopped_at IS NULL AND protocol_version >= ?`,
    [input.executorId, input.minProtocol],
  );
  return affected > 0;
}
