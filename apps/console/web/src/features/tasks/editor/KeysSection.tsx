import { CodeOptions, Field } from '../../../shared/components';
import { KEY_ON_LIMIT } from '../../../shared/model';
import type { SectionProps } from './task-form';
import { t } from '../../../shared/i18n/i18n';

/** Bounds per key of the run's params: runs going at once (concurrency) and runs started per second (rate), each of the task's own keys or of a key group's. An empty key: no bound. */
export function KeysSection({ form, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>{t('Bounds per key')}</legend>
      <div className="grid">
        <Field label={t('Concurrency key (params path)')} error={err('concurrency', 'concurrency.key')} hint={t('e.g. customerId: at most “limit” runs of one customer at once. Empty: no bound. Runs without a value share one key.')}>
          {(p) => <input {...p} name="concurrencyKey" value={form.concurrencyKey} onChange={(e) => set('concurrencyKey', e.target.value)} />}
        </Field>
        {form.concurrencyKey.trim() !== '' ? (
          <>
            <Field label={t('Key group (optional)')} error={err('concurrency.group')} hint={t('e.g. customer-sync: the tasks naming this group share their keys — a customer’s runs of them all count against the limit together. Empty: this task’s own keys.')}>
              {(p) => <input {...p} name="concurrencyGroup" value={form.concurrencyGroup} onChange={(e) => set('concurrencyGroup', e.target.value)} />}
            </Field>
            <Field label={t('Runs per key at once (1…1000)')} error={err('concurrency.limit')}>
              {(p) => <input {...p} name="concurrencyLimit" inputMode="numeric" value={form.concurrencyLimit} onChange={(e) => set('concurrencyLimit', e.target.value)} />}
            </Field>
            <Field label={t('Beyond the limit')} error={err('concurrency.onLimit')} hint={t('QUEUE: wait (held by key); CANCEL_NEW: cancel the new run; CANCEL_OLDEST: cancel the oldest running one.')}>
              {(p) => (
                <select {...p} name="concurrencyOnLimit" value={form.concurrencyOnLimit} onChange={(e) => set('concurrencyOnLimit', e.target.value)}>
                  <CodeOptions codes={KEY_ON_LIMIT} />
                </select>
              )}
            </Field>
          </>
        ) : null}
        <Field label={t('Rate key (params path)')} error={err('rateLimit', 'rateLimit.key')} hint={t('At most “per second” runs of one key started each second. Empty: no bound.')}>
          {(p) => <input {...p} name="rateKey" value={form.rateKey} onChange={(e) => set('rateKey', e.target.value)} />}
        </Field>
        {form.rateKey.trim() !== '' ? (
          <>
            <Field label={t('Rate key group (optional)')} error={err('rateLimit.group')} hint={t('e.g. crm-api: the tasks naming this group take a key’s runs from one bucket, each at its own rate. Empty: this task’s own keys.')}>
              {(p) => <input {...p} name="rateGroup" value={form.rateGroup} onChange={(e) => set('rateGroup', e.target.value)} />}
            </Field>
            <Field label={t('Runs per key per second')} error={err('rateLimit.perSecond')}>
              {(p) => <input {...p} name="ratePerSecond" inputMode="decimal" value={form.ratePerSecond} onChange={(e) => set('ratePerSecond', e.target.value)} />}
            </Field>
            <Field label={t('Burst (1…10000)')} error={err('rateLimit.burst')}>
              {(p) => <input {...p} name="rateBurst" inputMode="numeric" value={form.rateBurst} onChange={(e) => set('rateBurst', e.target.value)} />}
            </Field>
          </>
        ) : null}
      </div>
    </fieldset>
  );
}
