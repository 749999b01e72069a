import type { EntityManager } from 'typeorm';
import { dialectOf, execute } from '../sql';

/**
 * `SELECT id FROM runs WHERE id = <flow root> FOR UPDATE` — serialises the follow-ups of one flow.
 *
 * Fan-in: D waits for A and B. If A and B finish at the same moment in two transactions, each
 * can read the other as "not finished yet" (its update is not committed) and neither fires D.
 * (The opposite — both see both and both insert D — is harmless: the fire key `f:<flow>` makes
 * the second insert a no-op.) So the follow-up step first locks the flow's root run row; the
 * second transaction waits there until the first commits, and then — the follow-up
 * transactions run at READ COMMITTED — its reads see the first one's outcome.
 * No deadlock: each transaction holds only its own run's row and then asks for the root's; it
 * never asks for a sibling's row (its reads of siblings are plain, non-locking reads).
 * SQLite: transactions are serialised already.
 */
export async function lockFlowRoot(manager: EntityManager, flowId: number): Promise<void> {
  if (dialectOf(manager) !== 'mysql') return;
  await execute(manager, 'SELECT id FROM runs WHERE id = ? FOR UPDATE', [flowId]);
}
