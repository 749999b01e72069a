import { t } from '../../../shared/i18n/i18n';
import type { Task } from '../../../shared/model';

/**
 * Tasks applied from a tasks-as-code file (`baton apply`) are managed: their truth is the file.
 * The task page says so, says when the task has drifted from the file (edited here since), and
 * asks before an edit here (which the next apply would undo).
 */
export function ManagedTaskNotice({ task }: { task: Pick<Task, 'managed' | 'drifted'> | null | undefined }) {
  if (!task?.managed) return null;
  return (
    <div className={task.drifted ? 'error-box' : 'notice'} role="status" data-testid="managed-task">
      {task.drifted
        ? t('Drift: this task was changed here since its tasks-as-code file was applied. The next `baton apply` puts the file’s definition back; `baton plan` shows the difference.')
        : t('Managed by a tasks-as-code file (`baton apply`): change the file rather than this page.')}
    </div>
  );
}

/** Asks before saving a managed task; true to go ahead. */
export function confirmManagedEdit(task: Pick<Task, 'managed' | 'name'> | null | undefined): boolean {
  if (!task?.managed) return true;
  return confirm(t('Task {{name}} is managed by a tasks-as-code file: the next `baton apply` will undo this edit. Save anyway?', { name: task.name }));
}
