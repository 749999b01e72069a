import { Field } from '../../../shared/components';
import type { SectionProps } from './task-form';
import { t } from '../../../shared/i18n/i18n';

/** How often and how far apart a failed run is tried again. */
export function RetrySection({ form, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>{t('Retry')}</legend>
      <div className="grid">
        <Field label={t('Attempts (including the first)')} error={err('retry.maxAttempts', 'retry')}>
          {(p) => <input {...p} name="maxAttempts" inputMode="numeric" value={form.maxAttempts} onChange={(e) => set('maxAttempts', e.target.value)} />}
        </Field>
        <Field label={t('Backoff base (ms, or 30s, 5m, 1h)')} error={err('retry.backoffBaseMs')}>
          {(p) => <input {...p} name="backoffBaseMs" inputMode="numeric" value={form.backoffBaseMs} onChange={(e) => set('backoffBaseMs', e.target.value)} />}
        </Field>
        <Field label={t('Backoff max (ms, or 30s, 5m, 1h)')} error={err('retry.backoffMaxMs')}>
          {(p) => <input {...p} name="backoffMaxMs" inputMode="numeric" value={form.backoffMaxMs} onChange={(e) => set('backoffMaxMs', e.target.value)} />}
        </Field>
        <Field label={t('Jitter (0…1)')} error={err('retry.jitter')}>
          {(p) => <input {...p} name="jitter" inputMode="decimal" value={form.jitter} onChange={(e) => set('jitter', e.target.value)} />}
        </Field>
      </div>
    </fieldset>
  );
}
