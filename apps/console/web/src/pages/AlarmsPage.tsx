import { useEffect, useState } from 'react';
import { get, post, qs } from '../api';
import { ErrorBox, Field, PageHeader, useToast } from '../components';
import { DataTable } from '../DataTable';
import { EmptyState } from '../EmptyState';
import { FilterBar } from '../FilterBar';
import { fmtTime } from '../format';
import { useLoad } from '../hooks';
import { useLive } from '../live';
import { ALARM_TYPES, type Alarm, type Page, type Task } from '../model';
import { Link } from '../router';

export function AlarmsPage({ canWrite }: { canWrite: boolean }) {
  const toast = useToast();
  const live = useLive();
  const [acked, setAcked] = useState('false');
  const [type, setType] = useState('');
  const [taskId, setTaskId] = useState('');
  const tasks = useLoad(() => get<Page<Task>>('/tasks?limit=500'), []);
  const alarms = useLoad(() => get<Page<Alarm>>(`/alarms${qs({ acked: acked || undefined, type, taskId, limit: 200 })}`), [acked, type, taskId]);
  // A new alarm or an ack elsewhere: read the list again (the pop-up shows the alarm itself).
  useEffect(() => live.onAlarm(() => void alarms.reload()), [live]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => live.onAlarmAcked(() => void alarms.reload()), [live]); // eslint-disable-line react-hooks/exhaustive-deps
  const taskName = new Map((tasks.data?.items ?? []).map((t) => [t.id, t.name]));

  const ack = async (a: Alarm) => {
    try {
      await post(`/alarms/${a.id}/ack`);
      toast.notify(`Alarm #${a.id} acknowledged`);
      await alarms.reload();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };
  return (
    <>
      <PageHeader title="Alarms" />
      <FilterBar label="Filter alarms">
        <Field label="Status">
          {(p) => (
            <select {...p} name="acked" value={acked} onChange={(e) => setAcked(e.target.value)}>
              <option value="false">Open</option>
              <option value="true">Acknowledged</option>
              <option value="">All</option>
            </select>
          )}
        </Field>
        <Field label="Type">
          {(p) => (
            <select {...p} name="type" value={type} onChange={(e) => setType(e.target.value)}>
              <option value="">Any type</option>
              {ALARM_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Task">
          {(p) => (
            <select {...p} name="taskId" value={taskId} onChange={(e) => setTaskId(e.target.value)}>
              <option value="">All tasks</option>
              {(tasks.data?.items ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterBar>
      <ErrorBox error={alarms.error} />
      <DataTable
        label="Alarms"
        rows={alarms.data?.items}
        rowKey={(a) => a.id}
        rowProps={(a) => ({ 'data-alarm-row': a.id, 'data-alarm-type': a.type, className: `sev-${a.severity}` })}
        empty={
          type || taskId ? (
            <EmptyState title="No alarms match the filters.">Pick another type or task.</EmptyState>
          ) : (
            <EmptyState title={acked === 'false' ? 'No open alarms.' : acked === 'true' ? 'No acknowledged alarms.' : 'No alarms yet.'}>
              Failed, late or timed-out runs and executors going down raise alarms: they show here and pop up on every page. Set webhooks to have them sent on.
            </EmptyState>
          )
        }
        columns={[
          { header: 'Raised', className: 'small', cell: (a) => fmtTime(a.raisedAt) },
          { header: 'Type', cell: (a) => a.type },
          { header: 'Severity', cell: (a) => <span className={`badge sev-${a.severity}`}>{a.severity}</span> },
          { header: 'Task', cell: (a) => (a.taskId ? <Link to={`/tasks/${a.taskId}`}>{taskName.get(a.taskId) ?? `#${a.taskId}`}</Link> : '—') },
          { header: 'Run', cell: (a) => (a.runId ? <Link to={`/runs/${a.runId}`}>#{a.runId}</Link> : '—') },
          { header: 'Message', cell: (a) => a.message },
          { header: 'Count', cell: (a) => a.count },
          {
            header: 'Acknowledged',
            cell: (a) =>
              a.ackedAt ? (
                <span className="small">
                  {a.ackedBy} · {fmtTime(a.ackedAt)}
                </span>
              ) : canWrite ? (
                <button type="button" className="btn-small" onClick={() => void ack(a)} aria-label={`Acknowledge alarm ${a.id}`}>
                  Acknowledge
                </button>
              ) : (
                'open'
              ),
          },
        ]}
      />
    </>
  );
}
