import cronstrue from 'cronstrue';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { confirmManagedEdit, ManagedTaskNotice } from '../ManagedTaskNotice';
import { ApiError, del, get, post, put } from '../api';
import { ErrorBox, Field, PageHeader, useToast } from '../components';
import { errorsOf } from '../form-errors';
import { fmtTime, fromLocalInput, parseDuration, toLocalInput } from '../format';
import { useLoad } from '../hooks';
import { ALARM_TYPES, CONCURRENCY_POLICIES, FAN_OUT_FAIL_WHEN, FAN_OUT_MODES, MISFIRE_POLICIES, TRIGGER_KINDS, type CronPreview, type Executor, type Run, type SavedTask, type Task, type TriggerKind } from '../model';
import { Link, navigate } from '../router';
import { ParamsSchemaHelp, declaredSchema } from '../ParamsSchemaHelp';
import { TaskHistory } from '../audit/TaskHistory';

/** The form's values as typed (strings for numbers, so a wrong value reaches the API and is named). */
interface Form {
  name: string;
  group: string;
  executorApp: string;
  handler: string;
  params: string;
  kind: TriggerKind;
  intervalMs: string;
  delayMs: string;
  expression: string;
  timeZone: string;
  at: string;
  startAt: string;
  endAt: string;
  maxFires: string;
  misfirePolicy: string;
  misfireThresholdMs: string;
  priority: string;
  concurrencyPolicy: string;
  timeoutMs: string;
  startDeadlineMs: string;
  maxAttempts: string;
  backoffBaseMs: string;
  backoffMaxMs: string;
  jitter: string;
  calendarName: string;
  alarmTypes: string[];
  silenceMs: string;
  paused: boolean;
  pauseAfterFailures: string;
  fanOutMode: string;
  fanOutShards: string;
  fanOutFailWhen: string;
}

const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The API's names of the fields this editor shows: a reason on any other goes in the banner. */
const TASK_FIELDS = [
  'name', 'group', 'executorApp', 'handler', 'params',
  'trigger', 'trigger.kind', 'trigger.intervalMs', 'trigger.delayMs', 'trigger.expression', 'trigger.timeZone', 'trigger.at',
  'startAt', 'endAt', 'maxFires', 'calendarName', 'misfirePolicy', 'misfireThresholdMs', 'concurrencyPolicy', 'priority', 'timeoutMs', 'startDeadlineMs',
  'retry', 'retry.maxAttempts', 'retry.backoffBaseMs', 'retry.backoffMaxMs', 'retry.jitter',
  'fanOut', 'fanOut.mode', 'fanOut.shards', 'fanOut.failWhen',
  'alarms', 'alarms.types', 'alarms.silenceMs', 'pauseAfterFailures',
];

const EMPTY: Form = {
  name: '',
  group: 'default',
  executorApp: 'demo',
  handler: 'noop',
  params: '{}',
  kind: 'CRON',
  intervalMs: '60000',
  delayMs: '60000',
  expression: '0 */5 * * * *',
  timeZone: browserZone,
  at: '',
  startAt: '',
  endAt: '',
  maxFires: '',
  misfirePolicy: 'FIRE_ONCE_NOW',
  misfireThresholdMs: '5000',
  priority: '0',
  concurrencyPolicy: 'ALLOW',
  timeoutMs: '300000',
  startDeadlineMs: '10000',
  maxAttempts: '1',
  backoffBaseMs: '1000',
  backoffMaxMs: '60000',
  jitter: '0.2',
  calendarName: '',
  alarmTypes: ['START_LATE', 'TIMEOUT', 'FAILED', 'EXECUTOR_DOWN', 'DISPATCH_REJECTED', 'TASK_PAUSED', 'BUSINESS'],
  silenceMs: '60000',
  paused: false,
  pauseAfterFailures: '',
  fanOutMode: 'SINGLE',
  fanOutShards: '4',
  fanOutFailWhen: 'ANY_SHARD_FAILS',
};

function formOf(t: Task): Form {
  const s = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));
  return {
    name: t.name,
    group: t.group,
    executorApp: t.executorApp,
    handler: t.handler,
    params: JSON.stringify(t.params ?? {}, null, 2),
    kind: t.trigger.kind,
    intervalMs: s(t.trigger.intervalMs) || EMPTY.intervalMs,
    delayMs: s(t.trigger.delayMs) || EMPTY.delayMs,
    expression: t.trigger.expression ?? EMPTY.expression,
    timeZone: t.trigger.timeZone ?? browserZone,
    at: toLocalInput(t.trigger.at),
    startAt: toLocalInput(t.startAt),
    endAt: toLocalInput(t.endAt),
    maxFires: s(t.maxFires),
    misfirePolicy: t.misfirePolicy,
    misfireThresholdMs: s(t.misfireThresholdMs),
    priority: s(t.priority),
    concurrencyPolicy: t.concurrencyPolicy,
    timeoutMs: s(t.timeoutMs),
    startDeadlineMs: s(t.startDeadlineMs),
    maxAttempts: s(t.retry.maxAttempts),
    backoffBaseMs: s(t.retry.backoffBaseMs),
    backoffMaxMs: s(t.retry.backoffMaxMs),
    jitter: s(t.retry.jitter),
    calendarName: t.calendarName ?? '',
    alarmTypes: t.alarms.types,
    silenceMs: s(t.alarms.silenceMs),
    paused: t.paused,
    pauseAfterFailures: s(t.pauseAfterFailures),
    fanOutMode: t.fanOut.mode,
    fanOutShards: s(t.fanOut.shards) || EMPTY.fanOutShards,
    fanOutFailWhen: t.fanOut.failWhen,
  };
}

/** A number when it reads as one, else the text as typed (the API then names the field). */
const num = (v: string): unknown => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);
/** A duration field: milliseconds, or `30s`, `5m`, `1h`, `1.5s` (format.ts parseDuration); else the text as typed. */
const ms = (v: string): unknown => parseDuration(v) ?? v;
const optNum = (v: string): unknown => (v.trim() === '' ? null : num(v));

function bodyOf(f: Form): { body: Record<string, unknown>; local: Record<string, string> } {
  const local: Record<string, string> = {};
  let params: unknown = {};
  try {
    params = f.params.trim() === '' ? {} : JSON.parse(f.params);
  } catch (e) {
    local.params = `not valid JSON: ${(e as Error).message}`;
  }
  const trigger: Record<string, unknown> = { kind: f.kind };
  if (f.kind === 'FIXED_RATE') trigger.intervalMs = ms(f.intervalMs);
  if (f.kind === 'FIXED_DELAY') trigger.delayMs = ms(f.delayMs);
  if (f.kind === 'CRON') Object.assign(trigger, { expression: f.expression, timeZone: f.timeZone });
  if (f.kind === 'ONCE') {
    const at = fromLocalInput(f.at);
    if (at === null) local['trigger.at'] = 'a date and time is required';
    trigger.at = at;
  }
  return {
    local,
    body: {
      name: f.name,
      group: f.group,
      executorApp: f.executorApp,
      handler: f.handler,
      params,
      trigger,
      startAt: fromLocalInput(f.startAt),
      endAt: fromLocalInput(f.endAt),
      maxFires: optNum(f.maxFires),
      misfirePolicy: f.misfirePolicy,
      misfireThresholdMs: ms(f.misfireThresholdMs),
      priority: num(f.priority),
      concurrencyPolicy: f.concurrencyPolicy,
      timeoutMs: ms(f.timeoutMs),
      startDeadlineMs: ms(f.startDeadlineMs),
      retry: { maxAttempts: num(f.maxAttempts), backoffBaseMs: ms(f.backoffBaseMs), backoffMaxMs: ms(f.backoffMaxMs), jitter: num(f.jitter) },
      calendarName: f.calendarName.trim() === '' ? null : f.calendarName.trim(),
      alarms: { types: f.alarmTypes, silenceMs: ms(f.silenceMs) },
      paused: f.paused,
      pauseAfterFailures: optNum(f.pauseAfterFailures),
      fanOut: { mode: f.fanOutMode, shards: f.fanOutMode === 'SHARDED' ? num(f.fanOutShards) : null, failWhen: f.fanOutFailWhen },
    },
  };
}

export function TaskEditorPage({ taskId, canWrite }: { taskId: number | null; canWrite: boolean }) {
  const toast = useToast();
  const existing = useLoad(() => (taskId === null ? Promise.resolve(null) : get<Task>(`/tasks/${taskId}`)), [taskId]);
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (existing.data) setForm(formOf(existing.data));
  }, [existing.data]);
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => ({ ...f, [key]: value }));
  // The handlers the live executors of the chosen app offer (their heartbeats say), for the handler field's list.
  const executors = useLoad(() => get<Executor[]>('/executors'), []);
  const offered = [...new Set((executors.data ?? []).filter((x) => x.app === form.executorApp && x.state === 'UP').flatMap((x) => x.handlers))].sort();
  const paramsSchema = declaredSchema(executors.data ?? [], form.executorApp, form.handler);
  // The save button is at the foot of a long form: take the user to the first field it refused.
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);
  const err = (...keys: string[]) => keys.map((k) => errors[k]).filter(Boolean).join('; ') || undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const { body, local } = bodyOf(form);
    if (Object.keys(local).length) {
      setErrors(local);
      return;
    }
    if (!confirmManagedEdit(existing.data)) return;
    setSaving(true);
    try {
      const saved = taskId === null ? await post<SavedTask>('/tasks', body) : await put<SavedTask>(`/tasks/${taskId}`, { ...body, version: existing.data?.version });
      setErrors({});
      toast.notify(`Task ${saved.name} saved`);
      // Saved, but it would not run as things stand: say so where the field is, and in a notice.
      for (const w of saved.warnings) toast.notify(`Saved, but: ${w.reason}`, 'error');
      if (taskId === null) navigate(`/tasks/${saved.id}`, true);
      else existing.set(saved);
    } catch (e2) {
      setErrors(errorsOf(e2, TASK_FIELDS));
    } finally {
      setSaving(false);
    }
  };

  const runNow = async () => {
    try {
      const run = await post<Run>(`/tasks/${taskId}/trigger`, {});
      toast.notify(`Run #${run.id} created`, 'info', { to: `/runs/${run.id}`, label: `Open run #${run.id}` });
    } catch (e2) {
      toast.notify((e2 as Error).message, 'error');
    }
  };
  const remove = async () => {
    if (!confirm(`Delete task ${form.name}? Its dependency edges are deleted too; its run history stays.`)) return;
    try {
      await del(`/tasks/${taskId}?cascade=true`);
      toast.notify(`Task ${form.name} deleted`);
      navigate('/tasks');
    } catch (e2) {
      toast.notify((e2 as Error).message, 'error');
    }
  };


  return (
    <>
      <PageHeader title={taskId === null ? 'New task' : `Task ${existing.data?.name ?? ''}`}>
        {taskId !== null ? (
          <>
            <Link to={`/runs?taskId=${taskId}`} className="btn">
              Runs
            </Link>
            <Link to={`/stats?taskId=${taskId}`} className="btn">
              Statistics
            </Link>
            {canWrite ? (
              <>
                <button type="button" onClick={() => void runNow()}>
                  Run now
                </button>
                <button type="button" className="btn-danger" onClick={() => void remove()}>
                  Delete
                </button>
              </>
            ) : null}
          </>
        ) : null}
      </PageHeader>
      <ManagedTaskNotice task={existing.data} />
      <ErrorBox error={existing.error} />
      <form ref={formRef} className="editor" onSubmit={(e) => void submit(e)} aria-label="Task" noValidate>
        <ErrorBox error={errors._} />
        <fieldset>
          <legend>Task</legend>
          <div className="grid">
            <Field label="Name" error={err('name')}>
              {(p) => <input {...p} name="name" value={form.name} onChange={(e) => set('name', e.target.value)} />}
            </Field>
            <Field label="Group" error={err('group')}>
              {(p) => <input {...p} name="group" value={form.group} onChange={(e) => set('group', e.target.value)} />}
            </Field>
            <Field label="Executor app" error={err('executorApp')}>
              {(p) => <input {...p} name="executorApp" value={form.executorApp} onChange={(e) => set('executorApp', e.target.value)} />}
            </Field>
            <Field label="Handler" error={err('handler')} hint={offered.length ? undefined : form.executorApp ? `No live executor of app "${form.executorApp}" says what it offers.` : undefined}>
              {(p) => <input {...p} name="handler" list="offered-handlers" value={form.handler} onChange={(e) => set('handler', e.target.value)} />}
            </Field>
            <datalist id="offered-handlers">
              {offered.map((h) => (
                <option key={h} value={h} />
              ))}
            </datalist>
          </div>
          <Field label="Params (JSON)" error={err('params')}>
            {(p) => <textarea {...p} name="params" rows={3} className="mono" value={form.params} onChange={(e) => set('params', e.target.value)} />}
          </Field>
          {paramsSchema ? <ParamsSchemaHelp handler={form.handler} schema={paramsSchema} /> : null}
        </fieldset>

        <fieldset>
          <legend>Trigger</legend>
          <div className="radio-row" role="radiogroup" aria-label="Trigger type">
            {TRIGGER_KINDS.map((k) => (
              <label key={k} className="radio">
                <input type="radio" name="trigger-kind" value={k} checked={form.kind === k} onChange={() => set('kind', k)} /> {KIND_LABEL[k]}
              </label>
            ))}
          </div>
          {err('trigger', 'trigger.kind') ? (
            <div className="field-error" role="alert" data-field-error>
              {err('trigger', 'trigger.kind')}
            </div>
          ) : null}
          {form.kind === 'CRON' ? <CronFields form={form} set={set} errors={errors} /> : null}
          {form.kind === 'FIXED_RATE' ? (
            <Field label="Interval (ms, or 30s, 5m, 1h)" error={err('trigger.intervalMs')} hint="Fires every interval, from the start time (or creation).">
              {(p) => <input {...p} name="intervalMs" inputMode="numeric" value={form.intervalMs} onChange={(e) => set('intervalMs', e.target.value)} />}
            </Field>
          ) : null}
          {form.kind === 'FIXED_DELAY' ? (
            <Field label="Delay after each run (ms, or 30s, 5m, 1h)" error={err('trigger.delayMs')} hint="The next run is due this long after the previous one finished.">
              {(p) => <input {...p} name="delayMs" inputMode="numeric" value={form.delayMs} onChange={(e) => set('delayMs', e.target.value)} />}
            </Field>
          ) : null}
          {form.kind === 'ONCE' ? (
            <Field label="At (your local time)" error={err('trigger.at')}>
              {(p) => <input {...p} name="at" type="datetime-local" step="1" value={form.at} onChange={(e) => set('at', e.target.value)} />}
            </Field>
          ) : null}
          {form.kind === 'MANUAL' ? <p className="muted">Runs only when triggered by hand, by the API or by a parent task.</p> : null}
          {form.kind !== 'MANUAL' ? (
            <div className="grid">
              <Field label="Start at (optional)" error={err('startAt')}>
                {(p) => <input {...p} name="startAt" type="datetime-local" value={form.startAt} onChange={(e) => set('startAt', e.target.value)} />}
              </Field>
              <Field label="End at (optional)" error={err('endAt')}>
                {(p) => <input {...p} name="endAt" type="datetime-local" value={form.endAt} onChange={(e) => set('endAt', e.target.value)} />}
              </Field>
              <Field label="Maximum fires (optional)" error={err('maxFires')}>
                {(p) => <input {...p} name="maxFires" inputMode="numeric" value={form.maxFires} onChange={(e) => set('maxFires', e.target.value)} />}
              </Field>
              <Field label="Exclusion calendar (optional)" error={err('calendarName')}>
                {(p) => <input {...p} name="calendarName" value={form.calendarName} onChange={(e) => set('calendarName', e.target.value)} />}
              </Field>
            </div>
          ) : null}
        </fieldset>

        <fieldset>
          <legend>Misfires, concurrency, limits</legend>
          <div className="grid">
            <Field label="Misfire policy" error={err('misfirePolicy')}>
              {(p) => (
                <select {...p} name="misfirePolicy" value={form.misfirePolicy} onChange={(e) => set('misfirePolicy', e.target.value)}>
                  {MISFIRE_POLICIES.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Misfire threshold (ms, or 30s, 5m, 1h)" error={err('misfireThresholdMs')}>
              {(p) => <input {...p} name="misfireThresholdMs" inputMode="numeric" value={form.misfireThresholdMs} onChange={(e) => set('misfireThresholdMs', e.target.value)} />}
            </Field>
            <Field label="Concurrency policy" error={err('concurrencyPolicy')}>
              {(p) => (
                <select {...p} name="concurrencyPolicy" value={form.concurrencyPolicy} onChange={(e) => set('concurrencyPolicy', e.target.value)}>
                  {CONCURRENCY_POLICIES.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Priority (−100…100)" error={err('priority')}>
              {(p) => <input {...p} name="priority" inputMode="numeric" value={form.priority} onChange={(e) => set('priority', e.target.value)} />}
            </Field>
            <Field label="Timeout (ms, or 30s, 5m, 1h)" error={err('timeoutMs')}>
              {(p) => <input {...p} name="timeoutMs" inputMode="numeric" value={form.timeoutMs} onChange={(e) => set('timeoutMs', e.target.value)} />}
            </Field>
            <Field label="Start deadline (ms, or 30s, 5m, 1h)" error={err('startDeadlineMs')} hint="Not dispatched this long after its fire time: START_LATE alarm.">
              {(p) => <input {...p} name="startDeadlineMs" inputMode="numeric" value={form.startDeadlineMs} onChange={(e) => set('startDeadlineMs', e.target.value)} />}
            </Field>
          </div>
        </fieldset>

        <fieldset>
          <legend>Retry</legend>
          <div className="grid">
            <Field label="Attempts (including the first)" error={err('retry.maxAttempts', 'retry')}>
              {(p) => <input {...p} name="maxAttempts" inputMode="numeric" value={form.maxAttempts} onChange={(e) => set('maxAttempts', e.target.value)} />}
            </Field>
            <Field label="Backoff base (ms, or 30s, 5m, 1h)" error={err('retry.backoffBaseMs')}>
              {(p) => <input {...p} name="backoffBaseMs" inputMode="numeric" value={form.backoffBaseMs} onChange={(e) => set('backoffBaseMs', e.target.value)} />}
            </Field>
            <Field label="Backoff max (ms, or 30s, 5m, 1h)" error={err('retry.backoffMaxMs')}>
              {(p) => <input {...p} name="backoffMaxMs" inputMode="numeric" value={form.backoffMaxMs} onChange={(e) => set('backoffMaxMs', e.target.value)} />}
            </Field>
            <Field label="Jitter (0…1)" error={err('retry.jitter')}>
              {(p) => <input {...p} name="jitter" inputMode="decimal" value={form.jitter} onChange={(e) => set('jitter', e.target.value)} />}
            </Field>
          </div>
        </fieldset>

        <fieldset>
          <legend>Fan-out</legend>
          <div className="grid">
            <Field
              label="Runs on"
              error={err('fanOut.mode', 'fanOut')}
              hint="BROADCAST: every UP executor of the app, one shard each. SHARDED: N shards spread over them, each told ctx.shardIndex / ctx.shardTotal."
            >
              {(p) => (
                <select {...p} name="fanOutMode" value={form.fanOutMode} onChange={(e) => set('fanOutMode', e.target.value)}>
                  {FAN_OUT_MODES.map((m) => (
                    <option key={m} value={m}>
                      {m === 'SINGLE' ? 'SINGLE (one executor)' : m}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {form.fanOutMode === 'SHARDED' ? (
              <Field label="Shards (1…1000)" error={err('fanOut.shards')}>
                {(p) => <input {...p} name="fanOutShards" inputMode="numeric" value={form.fanOutShards} onChange={(e) => set('fanOutShards', e.target.value)} />}
              </Field>
            ) : null}
            {form.fanOutMode !== 'SINGLE' ? (
              <Field label="The run fails when" error={err('fanOut.failWhen')} hint="Once every shard has ended, after its own retries (a retry re-runs only the failed shards).">
                {(p) => (
                  <select {...p} name="fanOutFailWhen" value={form.fanOutFailWhen} onChange={(e) => set('fanOutFailWhen', e.target.value)}>
                    {FAN_OUT_FAIL_WHEN.map((m) => (
                      <option key={m} value={m}>
                        {m === 'ANY_SHARD_FAILS' ? 'any shard fails' : 'every shard fails'}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            ) : null}
          </div>
        </fieldset>

        <fieldset>
          <legend>Alarms</legend>
          <div className="checks" role="group" aria-label="Alarm types raised for this task">
            {/* BACKLOG_LATE is the tenant's, about no task: a task cannot turn it on or off. */}
            {ALARM_TYPES.filter((a) => a !== 'BACKLOG_LATE').map((a) => (
              <label key={a} className="check">
                <input
                  type="checkbox"
                  name="alarmTypes"
                  value={a}
                  checked={form.alarmTypes.includes(a)}
                  onChange={(e) => set('alarmTypes', e.target.checked ? [...form.alarmTypes, a] : form.alarmTypes.filter((x) => x !== a))}
                />{' '}
                {a}
              </label>
            ))}
          </div>
          {err('alarms.types', 'alarms') ? (
            <div className="field-error" role="alert" data-field-error>
              {err('alarms.types', 'alarms')}
            </div>
          ) : null}
          <Field label="Silence repeats for (ms, or 30s, 5m, 1h)" error={err('alarms.silenceMs')}>
            {(p) => <input {...p} name="silenceMs" inputMode="numeric" value={form.silenceMs} onChange={(e) => set('silenceMs', e.target.value)} />}
          </Field>
          <label className="check">
            <input type="checkbox" name="paused" checked={form.paused} onChange={(e) => set('paused', e.target.checked)} /> Paused
          </label>
          <Field label="Pause after failures in a row" error={err('pauseAfterFailures')} hint="The task pauses itself, with a TASK_PAUSED alarm, when this many runs in a row failed or timed out. Empty: never.">
            {(p) => <input {...p} name="pauseAfterFailures" inputMode="numeric" placeholder="never" value={form.pauseAfterFailures} onChange={(e) => set('pauseAfterFailures', e.target.value)} />}
          </Field>
        </fieldset>
        {canWrite ? (
          <div className="form-actions">
            <button type="submit" className="btn-primary" disabled={saving}>
              {saving ? 'Saving…' : taskId === null ? 'Create task' : 'Save task'}
            </button>
            <Link to="/tasks" className="btn">
              Cancel
            </Link>
          </div>
        ) : null}
        {existing.data ? (
          <p className="muted small">
            Next fire: {fmtTime(existing.data.nextFireAt, existing.data.trigger.timeZone)} · fired {existing.data.fireCount} times · version {existing.data.version}
          </p>
        ) : null}
      </form>
      {existing.data && canWrite && (existing.data.trigger.kind === 'CRON' || existing.data.trigger.kind === 'FIXED_RATE') ? <Backfill taskId={existing.data.id} /> : null}
      {existing.data ? <TaskHistory taskId={existing.data.id} timeZone={existing.data.trigger.timeZone} canWrite={canWrite} onRestored={(task) => existing.set(task)} /> : null}
    </>
  );
}

/** Runs the past fires of the task in a range (one BACKFILL run per fire, none twice), or stops that. */
function Backfill({ taskId }: { taskId: number }) {
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
      toast.notify(`Backfill: ${r.created} run(s) of ${r.fires} fire(s) (${r.alreadyRun} already ran${r.notWritten ? `, ${r.notWritten} not written: stopped meanwhile` : ''})${r.lastDueAt ? `, the last due ${fmtTime(r.lastDueAt)}` : ''}`);
    } catch (err) {
      setErrors(errorsOf(err, ['from', 'to', 'ratePerSec', 'trigger']));
    }
  };
  const stop = async () => {
    try {
      const r = await del<{ cancelled: number }>(`/tasks/${taskId}/backfill`);
      toast.notify(`Backfill stopped: ${r.cancelled} run(s) cancelled`);
    } catch (err) {
      toast.notify((err as Error).message, 'error');
    }
  };
  return (
    <form className="filters" aria-label="Backfill past fires" onSubmit={(e) => void start(e)}>
      <h2>Backfill</h2>
      <Field label="From (first fire)" error={errors.from}>
        {(p) => <input {...p} type="datetime-local" step={1} name="backfillFrom" value={from} onChange={(e) => setFrom(e.target.value)} />}
      </Field>
      <Field label="To (before)" error={errors.to ?? errors.trigger}>
        {(p) => <input {...p} type="datetime-local" step={1} name="backfillTo" value={to} onChange={(e) => setTo(e.target.value)} />}
      </Field>
      <Field label="Runs per second" error={errors.ratePerSec}>
        {(p) => <input {...p} name="backfillRate" inputMode="numeric" value={rate} onChange={(e) => setRate(e.target.value)} />}
      </Field>
      <div className="field field-button">
        <button type="submit">Backfill</button>
      </div>
      <div className="field field-button">
        <button type="button" className="btn-ghost" onClick={() => void stop()}>
          Stop backfill
        </button>
      </div>
      <ErrorBox error={errors._} />
    </form>
  );
}

const KIND_LABEL: Record<TriggerKind, string> = { MANUAL: 'Manual', FIXED_RATE: 'Fixed rate', FIXED_DELAY: 'Fixed delay', CRON: 'Cron', ONCE: 'Once' };

function CronFields({ form, set, errors }: { form: Form; set: <K extends keyof Form>(k: K, v: Form[K]) => void; errors: Record<string, string> }) {
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
    description = cronstrue.toString(form.expression, { use24HourTimeFormat: true, verbose: true });
  } catch {
    description = null;
  }
  const exprError = errors['trigger.expression'] ?? previewError.expression;
  const zoneError = errors['trigger.timeZone'] ?? previewError.timeZone;
  return (
    <div className="cron">
      <div className="grid">
        <Field label="Cron expression" error={exprError} hint="6 fields (second minute hour day month weekday) or 5 (no seconds).">
          {(p) => <input {...p} name="expression" className="mono" value={form.expression} onChange={(e) => set('expression', e.target.value)} spellCheck={false} />}
        </Field>
        <Field label="Time zone" error={zoneError}>
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
            <h3 className="small">Next {preview.next.length} fire times ({preview.timeZone})</h3>
            <ol className="fire-times" aria-label="Next fire times">
              {preview.next.map((t) => (
                <li key={t} className="mono" data-fire-time={t}>
                  {fmtTime(t, preview.timeZone)}
                </li>
              ))}
            </ol>
          </>
        ) : null}
      </div>
    </div>
  );
}
