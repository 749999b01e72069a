import { useState } from 'react';
import { post } from '../../shared/api';
import { useToast } from '../../shared/components';
import { t } from '../../shared/i18n/i18n';
import type { BulkRunResults, Run } from '../../shared/model';

/** The header checkbox of the runs list: selects every listed run, or none. */
export function SelectAll({ rows, selected, onChange }: { rows: Run[]; selected: ReadonlySet<number>; onChange: (s: ReadonlySet<number>) => void }) {
  const all = rows.length > 0 && rows.every((r) => selected.has(r.id));
  return <input type="checkbox" className="row-check" checked={all} onChange={(e) => onChange(e.target.checked ? new Set(rows.map((r) => r.id)) : new Set())} aria-label={t('Select every listed run')} />;
}

/**
 * Cancel or run again the selected runs in one request (one transaction): each id gets its own
 * answer, and a refused one (already over, still active, a shard) does not undo the others.
 */
export function BulkBar({ selected, onDone }: { selected: ReadonlySet<number>; onDone: () => void }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const act = async (action: 'cancel' | 'rerun') => {
    const ids = [...selected];
    if (action === 'cancel' && !window.confirm(t('Cancel {{count}} run(s)? Their handlers are aborted where they are.', { count: ids.length }))) return;
    setBusy(true);
    try {
      const { results } = await post<BulkRunResults>(`/runs/bulk-${action}`, { ids });
      const done = results.filter((r) => r.status < 300).length;
      const refused = results.filter((r) => r.status >= 300);
      const text = action === 'cancel' ? t('{{done}} of {{count}} run(s) cancelled', { done, count: ids.length }) : t('{{done}} of {{count}} run(s) started again', { done, count: ids.length });
      toast.notify(refused.length ? `${text}; ${t('refused')}: ${refused.map((r) => `#${r.id} (${r.message ?? r.status})`).join(', ')}` : text, refused.length ? 'error' : 'info');
      onDone();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    } finally {
      setBusy(false);
    }
  };
  if (selected.size === 0) return null;
  return (
    <div className="bulk-bar" role="region" aria-label={t('Selected runs')} data-bulk-bar>
      <span>{t('{{count}} selected', { count: selected.size })}</span>
      <button type="button" onClick={() => void act('rerun')} disabled={busy}>
        {t('Run selected again')}
      </button>
      <button type="button" className="btn-danger" onClick={() => void act('cancel')} disabled={busy}>
        {t('Cancel selected')}
      </button>
    </div>
  );
}
