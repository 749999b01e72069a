import cronstrue from 'cronstrue';
// Registers the Chinese reading with cronstrue (only the locales the console speaks are bundled).
import 'cronstrue/locales/zh_CN';
import { useEffect, useMemo, useState } from 'react';
import { ApiError, post } from '../../../shared/api';
import { CodeOptions, Field } from '../../../shared/components';
import { fmtTime } from '../../../shared/format';
import { REPEATED_TIME_POLICIES, SKIPPED_TIME_POLICIES, type CronPreview, type DstMark } from '../../../shared/model';
import type { SectionProps } from './task-form';
import { i18n, t } from '../../../shared/i18n/i18n';

/** What a preview shows beside a fire time daylight saving moved, repeated or skipped past. */
const MARKS: Record<DstMark, () => string> = {
  REPEATED_EARLIER: () => t('daylight saving: first of two occurrences'),
  REPEATED_LATER: () => t('daylight saving: second of two occurrences'),
  FIRED_LATE: () => t('daylight saving: a skipped time fires here, late'),
  AFTER_SKIPPED: () => t('daylight saving: a skipped time before this one did not fire'),
};

/**
 * The cron expression, its time zone and daylight-saving policies, with the human reading and
 * the next fire times the API computes (each marked where daylight saving played a part).
 */
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
      post<CronPreview>('/cron/preview', { expression: form.expression, timeZone: form.timeZone, repeatedTime: form.repeatedTime, skippedTime: form.skippedTime, count: 10 }).then(
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
  }, [form.expression, form.timeZone, form.repeatedTime, form.skippedTime]);
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
        <Field label={t('Repeated local time (clocks go back)')} error={err('trigger.repeatedTime') ?? previewError.repeatedTime} hint={t("Daylight saving. The defaults are Quartz's: once, after the clocks went back; a skipped time does not fire.")}>
          {(p) => (
            <select {...p} name="repeatedTime" value={form.repeatedTime} onChange={(e) => set('repeatedTime', e.target.value)}>
              <CodeOptions codes={REPEATED_TIME_POLICIES} />
            </select>
          )}
        </Field>
        <Field label={t('Skipped local time (clocks go forward)')} error={err('trigger.skippedTime') ?? previewError.skippedTime}>
          {(p) => (
            <select {...p} name="skippedTime" value={form.skippedTime} onChange={(e) => set('skippedTime', e.target.value)}>
              <CodeOptions codes={SKIPPED_TIME_POLICIES} />
            </select>
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
              {preview.next.map((x, i) => {
                const mark = preview.dst[i];
                return (
                  <li key={x} className="mono" data-fire-time={x} data-dst={mark ?? undefined}>
                    {fmtTime(x, preview.timeZone)}
                    {mark ? <span className="muted dst-mark"> — {MARKS[mark]()}</span> : null}
                  </li>
                );
              })}
            </ol>
          </>
        ) : null}
      </div>
    </div>
  );
}
