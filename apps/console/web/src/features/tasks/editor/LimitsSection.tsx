import { CodeOptions, Field } from '../../../shared/components';
import { CONCURRENCY_POLICIES, MISFIRE_POLICIES } from '../../../shared/model';
import type { SectionProps } from './task-form';
import { t } from '../../../shared/i18n/i18n';

/** Misfires, concurrency, priority, timeout and start deadline. */
export function LimitsSection({ form, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>{t('Misfires, concurrency, limits')}</legend>
      <div className="grid">
        <Field label={t('Misfire policy')} error={err('misfirePolicy')}>
          {(p) => (
            <select {...p} name="misfirePolicy" value={form.misfirePolicy} onChange={(e) => set('misfirePolicy', e.target.value)}>
              <CodeOptions codes={MISFIRE_POLICIES} />
            </select>
          )}
        </Field>
        <Field label={t('Misfire threshold (ms, or 30s, 5m, 1h)')} error={err('misfireThresholdMs')}>
          {(p) => <input {...p} name="misfireThresholdMs" inputMode="numeric" value={form.misfireThresholdMs} onChange={(e) => set('misfireThresholdMs', e.target.value)} />}
        </Field>
        <Field label={t('Concurrency policy')} error={err('concurrencyPolicy')}>
          {(p) => (
            <select {...p} name="concurrencyPolicy" value={form.concurrencyPolicy} onChange={(e) => set('concurrencyPolicy', e.target.value)}>
              <CodeOptions codes={CONCURRENCY_POLICIES} />
            </select>
          )}
        </Field>
        <Field label={t('Priority (−100…100)')} error={err('priority')}>
          {(p) => <input {...p} name="priority" inputMode="numeric" value={form.priority} onChange={(e) => set('priority', e.target.value)} />}
        </Field>
        <Field label={t('Timeout (ms, or 30s, 5m, 1h)')} error={err('timeoutMs')}>
          {(p) => <input {...p} name="timeoutMs" inputMode="numeric" value={form.timeoutMs} onChange={(e) => set('timeoutMs', e.target.value)} />}
        </Field>
        <Field label={t('Start deadline (ms, or 30s, 5m, 1h)')} error={err('startDeadlineMs')} hint={t('Not dispatched this long after its fire time (a retry: its retry time; a run its rate or concurrency key held back: when the key let it go): START_LATE alarm.')}>
          {(p) => <input {...p} name="startDeadlineMs" inputMode="numeric" value={form.startDeadlineMs} onChange={(e) => set('startDeadlineMs', e.target.value)} />}
        </Field>
      </div>
    </fieldset>
  );
}
