import { setCsrfToken, type Session, type SessionAnswer } from './api';
import type { Preferences } from './preferences';

/** A session as the API tells it (login or me): the user for the app, the CSRF token for `api`. */
export function started(user: Session['user'] & { preferences?: Partial<Preferences> | null }, answer: SessionAnswer): Session {
  setCsrfToken(answer.csrfToken);
  return {
    user: { username: user.username, role: user.role, tenantId: user.tenantId },
    // A server that keeps preferences answers them (null: none yet); one that does not, leaves the key out.
    owner: { key: `${user.tenantId ?? ''}/${user.username}`, server: user.preferences },
  };
}

export function ended(): null {
  setCsrfToken(null);
  return null;
}
