import { useState } from 'react';
import { get, post, qs } from '../api';
import { ErrorBox, useToast } from '../components';
import { DataTable } from '../DataTable';
import { EmptyState } from '../EmptyState';
import { fmtTime } from '../format';
import { useLoad } from '../hooks';
import type { AuditRecord, Page, SavedTask, TaskVersion } from '../model';
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
    if (!confirm(`Restore version ${v.version}? The task takes that version's definition, as a new version.`)) return;
    try {
      const task = await post<SavedTask>(`/tasks/${taskId}/versions/${v.version}/restore`);
      toast.notify(`Version ${v.version} restored as version ${task.version}`);
      onRestored(task);
      await versions.reload();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };

  return (
    <section className="task-history" aria-label="Versions and history">
      <div role="tablist" aria-label="Task history" className="tabs">
        <button type="button" role="tab" aria-selected={tab === 'versions'} onClick={() => setTab('versions')}>
          Versions
        </button>
        {canWrite ? (
          <button type="button" role="tab" aria-selected={tab === 'history'} onClick={() => setTab('history')}>
            History
          </button>
        ) : null}
      </div>
      {tab === 'versions' ? (
        <div role="tabpanel" aria-label="Versions">
          <ErrorBox error={versions.error} />
          <DataTable
            label="Task versions"
            rows={versions.data}
            rowKey={(v) => v.version}
            rowProps={(v) => ({ 'data-version': v.version, className: v.current ? 'current' : undefined })}
            empty={<EmptyState title="No versions yet.">Each save of the task keeps a version.</EmptyState>}
            columns={[
              { header: 'Version', cell: (v) => (v.current ? `${v.version} (current)` : v.version) },
              { header: 'Saved', className: 'small', cell: (v) => `${fmtTime(v.at)}${v.actor ? ` by ${v.actor}` : ''}` },
              { header: 'Changes', cell: (v) => <ChangeList changes={v.changes} none={v === versions.data?.[versions.data.length - 1] ? 'the oldest version kept' : undefined} /> },
              {
                header: 'Next fire times',
                className: 'small',
                cell: (v) => (v.nextFireTimes.length ? v.nextFireTimes.map((t) => fmtTime(t, timeZone)).join(', ') : 'none'),
              },
              canWrite && {
                header: 'Actions',
                cell: (v) =>
                  v.current ? null : (
                    <button type="button" className="btn-small" onClick={() => void restore(v)} aria-label={`Restore version ${v.version}`}>
                      Restore this version
                    </button>
                  ),
              },
            ]}
          />
        </div>
      ) : (
        <div role="tabpanel" aria-label="History">
          <ErrorBox error={history.error} />
          <AuditTable rows={history.data?.items} showTenant={false} empty="No changes recorded for this task." />
        </div>
      )}
    </section>
  );
}
