import { useState } from 'react';
import { get, post, qs } from '../../shared/api';
import { ErrorBox, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { fmtTime } from '../../shared/format';
import { useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import type { AuditRecord, Page, SavedTask, TaskVersion } from '../../shared/model';
import { AuditTable } from './AuditTable';
import { ChangeList } from './ChangeList';

/**
 * The task page's Versions and History tabs: each version with what it changed and the fire
 * times it gives (restore one: a new version), and the audit records of the task (admins only:
 * the audit log is theirs).
 */
export function TaskHistory({ taskId, timeZone, canWrite, onRestored }: { taskId: number; timeZone?: string; canWrite: boolean; onRestored: (task: SavedTask) => void }) {
  const [tab, setTab] = useState<'versions' | 'history'>('versions');
  const toast = useToast();
  const versions = useLoad(() => get<TaskVersion[]>(`/tasks/${taskId}/versions`), [taskId]);
  const history = useLoad(() => (canWrite && tab === 'history' ? get<Page<AuditRecord>>(`/audit${qs({ objectType: 'task', objectId: String(taskId), limit: 100 })}`) : Promise.resolve(null)), [taskId, tab, canWrite]);

  const restore = async (v: TaskVersion) => {
    if (!confirm(t("Restore version {{version}}? The task takes that version's definition, as a new version.", { version: v.version }))) return;
    try {
      const task = await post<SavedTask>(`/tasks/${taskId}/versions/${v.version}/restore`);
      toast.notify(t('Version {{version}} restored as version {{newVersion}}', { version: v.version, newVersion: task.version }));
      onRestored(task);
      await versions.reload();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };

  return (
    <section className="task-history" aria-label={t('Versions and history')}>
      <div role="tablist" aria-label={t('Task history')} className="tabs">
        <button type="button" role="tab" aria-selected={tab === 'versions'} onClick={() => setTab('versions')}>
          {t('Versions')}
        </button>
        {canWrite ? (
          <button type="button" role="tab" aria-selected={tab === 'history'} onClick={() => setTab('history')}>
            {t('History')}
          </button>
        ) : null}
      </div>
      {tab === 'versions' ? (
        <div role="tabpanel" aria-label={t('Versions')}>
          <ErrorBox error={versions.error} />
          <DataTable
            label={t('Task versions')}
            rows={versions.data}
            rowKey={(v) => v.version}
            rowProps={(v) => ({ 'data-version': v.version, className: v.current ? 'current' : undefined })}
            empty={<EmptyState title={t('No versions yet.')}>{t('Each save of the task keeps a version.')}</EmptyState>}
            columns={[
              { header: t('Version'), cell: (v) => (v.current ? t('{{version}} (current)', { version: v.version }) : v.version) },
              { header: t('Saved'), className: 'small', cell: (v) => (v.actor ? t('{{time}} by {{actor}}', { time: fmtTime(v.at), actor: v.actor }) : fmtTime(v.at)) },
              { header: t('Changes'), cell: (v) => <ChangeList changes={v.changes} none={v === versions.data?.[versions.data.length - 1] ? t('the oldest version kept') : undefined} /> },
              {
                header: t('Next fire times'),
                className: 'small',
                cell: (v) => (v.nextFireTimes.length ? v.nextFireTimes.map((at) => fmtTime(at, timeZone)).join(', ') : t('none')),
              },
              canWrite && {
                header: t('Actions'),
                cell: (v) =>
                  v.current ? null : (
                    <button type="button" className="btn-small" onClick={() => void restore(v)} aria-label={t('Restore version {{version}}', { version: v.version })}>
                      {t('Restore this version')}
                    </button>
                  ),
              },
            ]}
          />
        </div>
      ) : (
        <div role="tabpanel" aria-label={t('History')}>
          <ErrorBox error={history.error} />
          <AuditTable rows={history.data?.items} showTenant={false} empty={t('No changes recorded for this task.')} />
        </div>
      )}
    </section>
  );
}
