import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { zhCN } from './zh-CN';

/**
 * The console's two languages. The English text is the key (`t('Run now')`), so the English
 * catalogue is the set of keys the sources use (i18n/catalogue.spec.ts checks that zh-CN has
 * every one of them and nothing else); a key missing from zh-CN would show in English, which
 * the browser test of every page in zh-CN refuses.
 */
export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The browser's first language the console speaks (any `zh…` reads Simplified Chinese), else English. */
export function browserLanguage(languages: readonly string[] = typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language])): Language {
  for (const l of languages) {
    if (/^zh\b/i.test(l)) return 'zh-CN';
    if (/^en\b/i.test(l)) return 'en';
  }
  return 'en';
}

export function isLanguage(x: unknown): x is Language {
  return (LANGUAGES as readonly unknown[]).includes(x);
}

void i18next.use(initReactI18next).init({
  lng: browserLanguage(),
  fallbackLng: 'en',
  resources: { en: { translation: {} }, 'zh-CN': { translation: zhCN } },
  // Keys are English sentences: dots and colons in them are text, not key paths or namespaces.
  keySeparator: false,
  nsSeparator: false,
  // React escapes what it renders.
  interpolation: { escapeValue: false },
  returnEmptyString: false,
  showSupportNotice: false,
});

export const i18n = i18next;

/** `t` outside components (formatters, error texts); components use `useTranslation()`. */
export const t = i18next.t.bind(i18next);
