import { useEffect, useState } from 'react';
import { get, post, qs } from '../../shared/api';
import { CodeOptions, ErrorBox, Field, PageHeader, Time, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { FilterBar } from '../../shared/FilterBar';
import { useLoad } from '../../shared/hooks';
import { useLive } from '../../shared/live';
import { ALARM_TYPES, type Alarm, type Page, type Task } from '../../shared/model';
import { Link } from '../../shared/router';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';

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
  const taskName = new Map((tasks.data?.items ?? []).map((x) => [x.id, x.name]));

  const ack = async (a: Alarm) => {
    try {
      await post(`/alarms/${a.id}/ack`);
      toast.notify(t('Alarm #{{id}} acknowledged', { id: a.id }));
      await alarms.reload();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };
  return (
    <>
      <PageHeader title={t('Alarms')} />
      <FilterBar label={t('Filter alarms')}>
        <Field label={t('Status')}>
          {(p) => (
            <select {...p} name="acked" value={acked} onChange={(e) => setAcked(e.target.value)}>
              <option value="false">{t('Open')}</option>
              <option value="true">{t('Acknowledged')}</option>
              <option value="">{t('All')}</option>
            </select>
          )}
        </Field>
        <Field label={t('Type')}>
          {(p) => (
            <select {...p} name="type" value={type} onChange={(e) => setType(e.target.value)}>
              <option value="">{t('Any type')}</option>
              <CodeOptions codes={ALARM_TYPES} />
            </select>
          )}
        </Field>
        <Field label={t('Task')}>
          {(p) => (
            <select {...p} name="taskId" value={taskId} onChange={(e) => setTaskId(e.target.value)}>
              <option value="">{t('All tasks')}</option>
              {(tasks.data?.items ?? []).map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterBar>
      <ErrorBox error={alarms.error} />
      <DataTable
        label={t('Alarms')}
        rows={alarms.data?.items}
        rowKey={(a) => a.id}
        rowProps={(a) => ({ 'data-alarm-row': a.id, 'data-alarm-type': a.type, className: `sev-${a.severity}` })}
        empty={
          type || taskId ? (
            <EmptyState title={t('No alarms match the filters.')}>{t('Pick another type or task.')}</EmptyState>
          ) : (
            <EmptyState title={acked === 'false' ? t('No open alarms.') : acked === 'true' ? t('No acknowledged alarms.') : t('No alarms yet.')}>
              {t('Failed, late or timed-out runs and executors going down raise alarms: they show here and pop up on every page. Set webhooks to have them sent on.')}
            </EmptyState>
          )
        }
        columns={[
          { header: t('Raised'), className: 'small', cell: (a) => <Time ms={a.raisedAt} /> },
          { header: t('Type'), cell: (a) => codeLabel(a.type) },
          { header: t('Severity'), cell: (a) => <span className={`badge sev-${a.severity}`}>{codeLabel(a.severity)}</span> },
          { header: t('Task'), cell: (a) => (a.taskId ? <Link to={`/tasks/${a.taskId}`} translate="no">{taskName.get(a.taskId) ?? `#${a.taskId}`}</Link> : '—') },
          { header: t('Run'), cell: (a) => (a.runId ? <Link to={`/runs/${a.runId}`}>#{a.runId}</Link> : '—') },
          { header: t('Message'), cellProps: () => ({ translate: 'no' as const }), cell: (a) => a.message },
          { header: t('Count'), cell: (a) => a.count },
          {
            header: t('Acknowledged'),
            cell: (a) =>
              a.ackedAt ? (
                <span className="small">
                  <span translate="no">{a.ackedBy}</span> · <Time ms={a.ackedAt} />
                </span>
              ) : canWrite ? (
                <button type="button" className="btn-small" onClick={() => void ack(a)} aria-label={t('Acknowledge alarm {{id}}', { id: a.id })}>
                  {t('Acknowledge')}
                </button>
              ) : (
                t('open')
              ),
          },
        ]}
      />
    </>
  );
}
