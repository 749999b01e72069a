import { Field } from '../../../shared/components';
import { ALARM_TYPES } from '../../../shared/model';
import type { SectionProps } from './task-form';
import { t } from '../../../shared/i18n/i18n';
import { codeLabel } from '../../../shared/labels';

/** Which alarms the task raises, how long repeats are silenced, and pausing. */
export function AlarmsSection({ form, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>{t('Alarms')}</legend>
      <div className="checks" role="group" aria-label={t('Alarm types raised for this task')}>
        {/* BACKLOG_LATE and CLOCK_SKEW are about no task, RUN_STARTED_EARLY is a defect always raised: a task cannot turn them on or off. */}
        {ALARM_TYPES.filter((a) => a !== 'BACKLOG_LATE' && a !== 'CLOCK_SKEW' && a !== 'RUN_STARTED_EARLY').map((a) => (
          <label key={a} className="check">
            <input
              type="checkbox"
              name="alarmTypes"
              value={a}
              checked={form.alarmTypes.includes(a)}
              onChange={(e) => set('alarmTypes', e.target.checked ? [...form.alarmTypes, a] : form.alarmTypes.filter((x) => x !== a))}
            />{' '}
            {codeLabel(a)}
          </label>
        ))}
      </div>
      {err('alarms.types', 'alarms') ? (
        <div className="field-error" role="alert" data-field-error>
          {err('alarms.types', 'alarms')}
        </div>
      ) : null}
      <Field label={t('Silence repeats for (ms, or 30s, 5m, 1h)')} error={err('alarms.silenceMs')}>
        {(p) => <input {...p} name="silenceMs" inputMode="numeric" value={form.silenceMs} onChange={(e) => set('silenceMs', e.target.value)} />}
      </Field>
      <label className="check">
        <input type="checkbox" name="paused" checked={form.paused} onChange={(e) => set('paused', e.target.checked)} /> {t('Paused')}
      </label>
      <Field label={t('Pause after failures in a row')} error={err('pauseAfterFailures')} hint={t('The task pauses itself, with a TASK_PAUSED alarm, when this many runs in a row failed or timed out. Empty: never.')}>
        {(p) => <input {...p} name="pauseAfterFailures" inputMode="numeric" placeholder={t('never')} value={form.pauseAfterFailures} onChange={(e) => set('pauseAfterFailures', e.target.value)} />}
      </Field>
    </fieldset>
  );
}
