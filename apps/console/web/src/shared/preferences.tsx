import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { put } from './api';
import type { Preferences as StoredPreferences } from './model';
import { browserTimeZone, setDisplay } from './format';
import { browserLanguage, i18n, isLanguage, type Language } from './i18n/i18n';

export type Theme = 'light' | 'dark';

/** How one user reads the console: language, theme, and the time zone every time is shown in. */
export interface Preferences {
  language: Language;
  theme: Theme;
  timeZone: string;
}

/** Whose preferences, and where they are kept: the server's copy when its /auth/me gives one, else this browser's. */
export interface PreferencesOwner {
  key: string;
  /** The preferences the server keeps for the user (GET /api/me/preferences; null fields: the browser's), or undefined when it keeps none. */
  server?: StoredPreferences;
}

interface PreferencesApi {
  prefs: Preferences;
  update(change: Partial<Preferences>): void;
}

const PreferencesContext = createContext<PreferencesApi | null>(null);

export function usePreferences(): PreferencesApi {
  const api = useContext(PreferencesContext);
  if (!api) throw new Error('usePreferences outside PreferencesProvider');
  return api;
}

export function defaults(): Preferences {
  const dark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  return { language: browserLanguage(), theme: dark ? 'dark' : 'light', timeZone: browserTimeZone() };
}

function isZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || !zone) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Whatever was kept, checked field by field: a value this browser cannot use falls back to the default. */
export function sanitize(kept: Partial<Record<keyof Preferences, unknown>> | null | undefined): Preferences {
  const d = defaults();
  return {
    language: isLanguage(kept?.language) ? kept.language : d.language,
    theme: kept?.theme === 'dark' || kept?.theme === 'light' ? kept.theme : d.theme,
    timeZone: isZone(kept?.timeZone) ? kept.timeZone : d.timeZone,
  };
}

const storageKey = (owner: string) => `baton.preferences:${owner}`;

function readLocal(owner: string): Partial<Preferences> | null {
  try {
    return JSON.parse(localStorage.getItem(storageKey(owner)) ?? 'null') as Partial<Preferences> | null;
  } catch {
    return null;
  }
}

/** Makes the preferences the page's: i18next's language, <html lang> and data-theme, the formatters' locale and zone. */
export function applyPreferences(p: Preferences): void {
  if (i18n.language !== p.language) void i18n.changeLanguage(p.language);
  document.documentElement.lang = p.language;
  document.documentElement.dataset.theme = p.theme;
  setDisplay(p.language, p.timeZone);
}

/**
 * The user's preferences for everything below. Kept on the server (PUT /api/me/preferences)
 * when the server has them, so they follow the user to another browser; otherwise in this
 * browser's localStorage, per user — only preferences, never anything of the session.
 */
export function PreferencesProvider({ owner, children }: { owner: PreferencesOwner; children: ReactNode }) {
  const [prefs, setPrefs] = useState<Preferences>(() => {
    // A user with nothing kept yet starts with what they chose on the login page, if anything.
    const kept = owner.server ?? readLocal(owner.key);
    const p = sanitize(kept && Object.values(kept).some((v) => v !== null) ? kept : readLocal('login'));
    applyPreferences(p);
    return p;
  });
  const current = useRef(prefs);
  // What the server keeps: only the fields the user chose (null: the browser's), so a default is never pinned.
  const stored = useRef(owner.server);
  const update = useCallback(
    (change: Partial<Preferences>) => {
      const next = sanitize({ ...current.current, ...change });
      current.current = next;
      applyPreferences(next);
      setPrefs(next);
      if (stored.current) {
        stored.current = { ...stored.current, ...change };
        void put('/me/preferences', stored.current).catch(() => undefined);
      }
      else localStorage.setItem(storageKey(owner.key), JSON.stringify(next));
      // The login page opens as this browser was last left (language and theme, before anyone logs in).
      if (owner.key !== 'login') localStorage.setItem(storageKey('login'), JSON.stringify(next));
    },
    [owner],
  );
  const api = useMemo(() => ({ prefs, update }), [prefs, update]);
  return <PreferencesContext.Provider value={api}>{children}</PreferencesContext.Provider>;
}
