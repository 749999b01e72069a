import cronstrue from 'cronstrue';
// Registers the Chinese reading with cronstrue (only the locales the console speaks are bundled).
import 'cronstrue/locales/zh_CN';
import { useEffect, useMemo, useState } from 'react';
import { ApiError, post } from '../../../shared/api';
import { Field } from '../../../shared/components';
import { fmtTime } from '../../../shared/format';
import type { CronPreview } from '../../../shared/model';
import type { SectionProps } from './task-form';
import { i18n, t } from '../../../shared/i18n/i18n';

/** The cron expression and its time zone, with the human reading and the next fire times the API computes. */
export function CronFields({ form, set, err }: SectionProps) {
  const [preview, setPreview] = useState<CronPreview | null>(null);
  const [previewError, setPreviewError] = useState<Record<string, string>>({});
  const zones = useMemo(() => {
    try {
      return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone');
    } catch {
      return ['UTC'];
    }
  }, []);
  useEffect(() => {
    const timer = setTimeout(() => {
      post<CronPreview>('/cron/preview', { expression: form.expression, timeZone: form.timeZone, count: 10 }).then(
        (p) => {
          setPreview(p);
          setPreviewError({});
        },
        (e: unknown) => {
          setPreview(null);
          setPreviewError(e instanceof ApiError ? e.fieldErrors() : { expression: (e as Error).message });
        },
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [form.expression, form.timeZone]);
  let description: string | null = null;
  try {
    description = cronstrue.toString(form.expression, { use24HourTimeFormat: true, verbose: true, locale: i18n.language === 'zh-CN' ? 'zh_CN' : 'en' });
  } catch {
    description = null;
  }
  const exprError = err('trigger.expression') ?? previewError.expression;
  const zoneError = err('trigger.timeZone') ?? previewError.timeZone;
  return (
    <div className="cron">
      <div className="grid">
        <Field label={t('Cron expression')} error={exprError} hint={t('6 fields (second minute hour day month weekday) or 5 (no seconds).')}>
          {(p) => <input {...p} name="expression" className="mono" value={form.expression} onChange={(e) => set('expression', e.target.value)} spellCheck={false} />}
        </Field>
        <Field label={t('Time zone')} error={zoneError}>
          {(p) => (
            <>
              <input {...p} name="timeZone" list="tz-list" value={form.timeZone} onChange={(e) => set('timeZone', e.target.value)} spellCheck={false} />
              <datalist id="tz-list">
                {zones.map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
            </>
          )}
        </Field>
      </div>
      <div className="cron-preview" aria-live="polite">
        <p className="cron-description" data-cron-description>
          {description && !exprError ? description : <span className="muted">—</span>}
        </p>
        {preview ? (
          <>
            <h3 className="small">{t('Next {{count}} fire times ({{timeZone}})', { count: preview.next.length, timeZone: preview.timeZone })}</h3>
            <ol className="fire-times" aria-label={t('Next fire times')}>
              {preview.next.map((x) => (
                <li key={x} className="mono" data-fire-time={x}>
                  {fmtTime(x, preview.timeZone)}
                </li>
              ))}
            </ol>
          </>
        ) : null}
      </div>
    </div>
  );
}
