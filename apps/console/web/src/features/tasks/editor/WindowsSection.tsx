import { CodeOptions, Field } from '../../../shared/components';
import { THROTTLE_KEEP } from '../../../shared/model';
import type { SectionProps } from './task-form';
import { t } from '../../../shared/i18n/i18n';

/** Debounce and throttle per key of the submissions' params (events, triggers). An empty key: none. */
export function WindowsSection({ form, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>{t('Debounce and throttle per key')}</legend>
      <div className="grid">
        <Field label={t('Debounce key (params path)')} error={err('debounce', 'debounce.key')} hint={t('e.g. customerId: a burst of events or triggers of one customer starts one run, with the last one’s params, once the customer is quiet. Empty: none.')}>
          {(p) => <input {...p} name="debounceKey" value={form.debounceKey} onChange={(e) => set('debounceKey', e.target.value)} />}
        </Field>
        {form.debounceKey.trim() !== '' ? (
          <>
            <Field label={t('Quiet time, ms (100…86400000)')} error={err('debounce.quietMs')}>
              {(p) => <input {...p} name="debounceQuietMs" inputMode="numeric" value={form.debounceQuietMs} onChange={(e) => set('debounceQuietMs', e.target.value)} />}
            </Field>
            <Field label={t('Longest wait, ms')} error={err('debounce.maxWaitMs')} hint={t('From the burst’s first event: the run starts then at the latest. Empty: 10 × the quiet time.')}>
              {(p) => <input {...p} name="debounceMaxWaitMs" inputMode="numeric" value={form.debounceMaxWaitMs} onChange={(e) => set('debounceMaxWaitMs', e.target.value)} />}
            </Field>
          </>
        ) : null}
        <Field label={t('Throttle key (params path)')} error={err('throttle', 'throttle.key')} hint={t('At most “runs per period” runs of one key. Empty: none. Not with a debounce key.')}>
          {(p) => <input {...p} name="throttleKey" value={form.throttleKey} onChange={(e) => set('throttleKey', e.target.value)} />}
        </Field>
        {form.throttleKey.trim() !== '' ? (
          <>
            <Field label={t('Runs per period (1…1000)')} error={err('throttle.limit')}>
              {(p) => <input {...p} name="throttleLimit" inputMode="numeric" value={form.throttleLimit} onChange={(e) => set('throttleLimit', e.target.value)} />}
            </Field>
            <Field label={t('Period, ms (100…86400000)')} error={err('throttle.periodMs')}>
              {(p) => <input {...p} name="throttlePeriodMs" inputMode="numeric" value={form.throttlePeriodMs} onChange={(e) => set('throttlePeriodMs', e.target.value)} />}
            </Field>
            <Field label={t('Beyond the limit, keep')} error={err('throttle.keep')} hint={t('LAST: the rest become one run at the period’s end, with the last params; FIRST: the rest start nothing.')}>
              {(p) => (
                <select {...p} name="throttleKeep" value={form.throttleKeep} onChange={(e) => set('throttleKeep', e.target.value)}>
                  <CodeOptions codes={THROTTLE_KEEP} />
                </select>
              )}
            </Field>
          </>
        ) : null}
      </div>
    </fieldset>
  );
}
