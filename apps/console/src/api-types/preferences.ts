/** A console user's display preferences (GET/PUT /api/me/preferences); null: the browser's. */
export interface Preferences {
  language: 'en' | 'zh-CN' | null;
  /** IANA time zone. */
  timeZone: string | null;
  theme: 'light' | 'dark' | null;
}
