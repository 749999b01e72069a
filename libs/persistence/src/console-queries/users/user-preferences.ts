import type { EntityManager } from 'typeorm';
import { UserEntity } from '../../entities';

/** A console user's display preferences; null: the browser's. */
export interface UserPreferences {
  language: string | null;
  timeZone: string | null;
  theme: string | null;
}

/**
 *   SELECT language, time_zone, theme FROM users WHERE id = ?
 * Null when the user is gone.
 */
export async function readUserPreferences(manager: EntityManager, userId: number): Promise<UserPreferences | null> {
  const row = await manager.findOne(UserEntity, { where: { id: userId }, select: { id: true, language: true, timeZone: true, theme: true } });
  return row ? { language: row.language, timeZone: row.timeZone, theme: row.theme } : null;
}

/**
 *   UPDATE users SET language = ?, time_zone = ?, theme = ? WHERE id = ?
 * True when the user exists.
 */
export async function writeUserPreferences(manager: EntityManager, userId: number, preferences: UserPreferences): Promise<boolean> {
  const result = await manager.update(UserEntity, { id: userId }, preferences);
  return (result.affected ?? 0) > 0;
}
