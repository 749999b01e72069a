import { t } from '../shared/i18n/i18n';
import { usePreferences } from '../shared/preferences';

/** The language (each named in itself) and the theme, switched from the top bar and kept as the user's preferences. */
export function PreferenceSwitches() {
  const { prefs, update } = usePreferences();
  const dark = prefs.theme === 'dark';
  return (
    <>
      <select className="lang-switch" aria-label={t('Language')} value={prefs.language} onChange={(e) => update({ language: e.target.value as typeof prefs.language })} data-language={prefs.language}>
        <option value="en" lang="en">
          English
        </option>
        <option value="zh-CN" lang="zh-CN">
          中文
        </option>
      </select>
      <button type="button" className="btn-ghost theme-switch" aria-pressed={dark} onClick={() => update({ theme: dark ? 'light' : 'dark' })} title={dark ? t('Light theme') : t('Dark theme')} data-theme-switch>
        <span aria-hidden="true">{dark ? '☀' : '☾'}</span>
        <span className="sr-only">{t('Dark theme')}</span>
      </button>
    </>
  );
}
