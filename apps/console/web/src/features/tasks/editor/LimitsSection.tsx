import { CodeOptions, Field } from '../../../shared/components';
import { CONCURRENCY_POLICIES, MISFIRE_POLICIES, START_LATE_POLICIES } from '../../../shared/model';
import type { SectionProps } from './task-form';
import { t } from '../../../shared/i18n/i18n';

/** Misfires, concurrency, priority, timeout, start deadline and what a run that misses it becomes. */
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
        <Field
          label={t('A run not started by its start deadline')}
          error={err('onStartLate')}
          hint={t('ALARM: it waits on and runs, late, once an executor takes it. GIVE_UP: it ends FAILED, not retried (as XXL-JOB fails a fire no executor took); a run already sent is never given up.')}
        >
          {(p) => (
            <select {...p} name="onStartLate" value={form.onStartLate} onChange={(e) => set('onStartLate', e.target.value)}>
              <CodeOptions codes={START_LATE_POLICIES} />
            </select>
          )}
        </Field>
      </div>
    </fieldset>
  );
}
