import { Field } from '../../../shared/components';
import { FAN_OUT_FAIL_WHEN, FAN_OUT_MODES } from '../../../shared/model';
import type { SectionProps } from './task-form';
import { t } from '../../../shared/i18n/i18n';
import { codeLabel } from '../../../shared/labels';

/** One executor, every executor of the app, or N shards spread over them. */
export function FanOutSection({ form, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>{t('Fan-out')}</legend>
      <div className="grid">
        <Field
          label={t('Runs on')}
          error={err('fanOut.mode', 'fanOut')}
          hint={t('BROADCAST: every UP executor of the app, one shard each. SHARDED: N shards spread over them, each told ctx.shardIndex / ctx.shardTotal.')}
        >
          {(p) => (
            <select {...p} name="fanOutMode" value={form.fanOutMode} onChange={(e) => set('fanOutMode', e.target.value)}>
              {FAN_OUT_MODES.map((m) => (
                <option key={m} value={m}>
                  {m === 'SINGLE' ? t('SINGLE (one executor)') : codeLabel(m)}
                </option>
              ))}
            </select>
          )}
        </Field>
        {form.fanOutMode === 'SHARDED' ? (
          <Field label={t('Shards (1…1000)')} error={err('fanOut.shards')}>
            {(p) => <input {...p} name="fanOutShards" inputMode="numeric" value={form.fanOutShards} onChange={(e) => set('fanOutShards', e.target.value)} />}
          </Field>
        ) : null}
        {form.fanOutMode !== 'SINGLE' ? (
          <Field label={t('The run fails when')} error={err('fanOut.failWhen')} hint={t('Once every shard has ended, after its own retries (a retry re-runs only the failed shards).')}>
            {(p) => (
              <select {...p} name="fanOutFailWhen" value={form.fanOutFailWhen} onChange={(e) => set('fanOutFailWhen', e.target.value)}>
                {FAN_OUT_FAIL_WHEN.map((m) => (
                  <option key={m} value={m}>
                    {m === 'ANY_SHARD_FAILS' ? t('any shard fails') : t('every shard fails')}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
      </div>
    </fieldset>
  );
}
