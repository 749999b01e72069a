import { get, setCsrfToken, type Session, type SessionAnswer } from './api';
import type { Preferences } from './model';

/** A session as the API tells it (login or me): the user for the app, the CSRF token for `api`. */
export function started(user: Session['user'], answer: SessionAnswer): Session {
  setCsrfToken(answer.csrfToken);
  return { user: { username: user.username, role: user.role, tenantId: user.tenantId, sso: user.sso ?? null }, owner: { key: `${user.tenantId ?? ''}/${user.username}` } };
}

/**
 * The session with the preferences the server keeps for its user (GET /api/me/preferences; a
 * null field: the browser's). A console without that route leaves them to this browser.
 */
export async function withServerPreferences(session: Session): Promise<Session> {
  try {
    const server = await get<Preferences>('/me/preferences');
    return { ...session, owner: { ...session.owner, server } };
  } catch {
    return session;
  }
}

export function ended(): null {
  setCsrfToken(null);
  return null;
}
