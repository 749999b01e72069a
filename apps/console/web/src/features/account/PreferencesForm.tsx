import { useMemo } from 'react';
import { Field } from '../../shared/components';
import { browserTimeZone, fmtTime } from '../../shared/format';
import { t } from '../../shared/i18n/i18n';
import { usePreferences, type Theme } from '../../shared/preferences';

/** Every IANA zone this browser knows, for the display time zone's list. */
function zones(): string[] {
  try {
    return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

/** The user's language, theme and display time zone; each change applies at once and is kept. */
export function PreferencesForm() {
  const { prefs, update } = usePreferences();
  const list = useMemo(zones, []);
  const browser = browserTimeZone();
  return (
    <section aria-labelledby="prefs-h">
      <h2 id="prefs-h">{t('Preferences')}</h2>
      <form className="card" style={{ maxWidth: '30rem' }} aria-label={t('Preferences')} onSubmit={(e) => e.preventDefault()}>
        <Field label={t('Language')}>
          {(p) => (
            <select {...p} name="language" value={prefs.language} onChange={(e) => update({ language: e.target.value as typeof prefs.language })}>
              <option value="en" lang="en">
                English
              </option>
              <option value="zh-CN" lang="zh-CN">
                中文（简体）
              </option>
            </select>
          )}
        </Field>
        <Field label={t('Theme')}>
          {(p) => (
            <select {...p} name="theme" value={prefs.theme} onChange={(e) => update({ theme: e.target.value as Theme })}>
              <option value="light">{t('Light')}</option>
              <option value="dark">{t('Dark')}</option>
            </select>
          )}
        </Field>
        <Field label={t('Display time zone')} hint={t('Every time in the console is shown in this zone (hover a time for its UTC instant). Your browser: {{zone}}.', { zone: browser })}>
          {(p) => (
            <select {...p} name="timeZone" value={prefs.timeZone} onChange={(e) => update({ timeZone: e.target.value })}>
              {[...new Set([prefs.timeZone, browser, 'UTC', ...list])].map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
          )}
        </Field>
        <p className="small muted" data-prefs-now>
          {t('Now')}: {fmtTime(Date.now())}
        </p>
      </form>
    </section>
  );
}
