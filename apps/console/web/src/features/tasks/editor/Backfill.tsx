import { useState, type FormEvent } from 'react';
import { del, post } from '../../../shared/api';
import { ErrorBox, Field, useToast } from '../../../shared/components';
import { errorsOf } from '../../../shared/form-errors';
import { fmtTime, fromLocalInput } from '../../../shared/format';
import { num } from './task-form';
import { t } from '../../../shared/i18n/i18n';

/** Runs the past fires of the task in a range (one BACKFILL run per fire, none twice), or stops that. */
export function Backfill({ taskId }: { taskId: number }) {
  const toast = useToast();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [rate, setRate] = useState('10');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const start = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const r = await post<{ fires: number; created: number; alreadyRun: number; notWritten: number; lastDueAt: number | null }>(`/tasks/${taskId}/backfill`, {
        from: fromLocalInput(from) ?? from,
        to: fromLocalInput(to) ?? to,
        ratePerSec: num(rate),
      });
      setErrors({});
      toast.notify(
        t('Backfill: {{created}} run(s) of {{fires}} fire(s) ({{alreadyRun}} already ran', { created: r.created, fires: r.fires, alreadyRun: r.alreadyRun }) +
          (r.notWritten ? t(', {{count}} not written: stopped meanwhile', { count: r.notWritten }) : '') +
          ')' +
          (r.lastDueAt ? t(', the last due {{time}}', { time: fmtTime(r.lastDueAt) }) : ''),
      );
    } catch (err) {
      setErrors(errorsOf(err, ['from', 'to', 'ratePerSec', 'trigger']));
    }
  };
  const stop = async () => {
    try {
      const r = await del<{ cancelled: number }>(`/tasks/${taskId}/backfill`);
      toast.notify(t('Backfill stopped: {{count}} run(s) cancelled', { count: r.cancelled }));
    } catch (err) {
      toast.notify((err as Error).message, 'error');
    }
  };
  return (
    <form className="filters" aria-label={t('Backfill past fires')} onSubmit={(e) => void start(e)}>
      <h2>{t('Backfill')}</h2>
      <Field label={t('From (first fire)')} error={errors.from}>
        {(p) => <input {...p} type="datetime-local" step={1} name="backfillFrom" value={from} onChange={(e) => setFrom(e.target.value)} />}
      </Field>
      <Field label={t('To (before)')} error={errors.to ?? errors.trigger}>
        {(p) => <input {...p} type="datetime-local" step={1} name="backfillTo" value={to} onChange={(e) => setTo(e.target.value)} />}
      </Field>
      <Field label={t('Runs per second')} error={errors.ratePerSec}>
        {(p) => <input {...p} name="backfillRate" inputMode="numeric" value={rate} onChange={(e) => setRate(e.target.value)} />}
      </Field>
      <div className="field field-button">
        <button type="submit">{t('Backfill')}</button>
      </div>
      <div className="field field-button">
        <button type="button" className="btn-ghost" onClick={() => void stop()}>
          {t('Stop backfill')}
        </button>
      </div>
      <ErrorBox error={errors._} />
    </form>
  );
}

