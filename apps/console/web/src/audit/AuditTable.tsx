import { DataTable } from '../DataTable';
import { EmptyState } from '../EmptyState';
import { fmtTime } from '../format';
import type { AuditRecord } from '../model';
import { Link } from '../router';
import { ChangeList } from './ChangeList';
import { changesOf } from './changes';
import './audit.css';

/** Audit records as a table: when, who (and from where), what, the object, and what changed. */
export function AuditTable({ rows, showTenant, empty }: { rows: readonly AuditRecord[] | undefined; showTenant: boolean; empty: string }) {
  return (
    <DataTable
      label="Audit records"
      rows={rows}
      rowKey={(r) => r.id}
      rowProps={(r) => ({ 'data-audit-row': r.id, 'data-audit-action': r.action })}
      empty={<EmptyState title={empty}>Every change made through the console or the API is recorded here: who, when, from where, before and after.</EmptyState>}
      columns={[
        { header: 'When', className: 'small', cell: (r) => fmtTime(r.at) },
        showTenant && { header: 'Tenant', cell: (r) => r.tenantId ?? '—' },
        {
          header: 'Who',
          cell: (r) => (
            <span title={r.actor.kind === 'apiKey' ? 'API key' : r.actor.kind === 'anonymous' ? 'Not logged in' : 'User'}>
              {r.actor.name}
              {r.actor.address ? <span className="muted small"> · {r.actor.address}</span> : null}
            </span>
          ),
        },
        { header: 'Action', cell: (r) => <code>{r.action}</code> },
        { header: 'Object', cell: (r) => (r.objectType === 'task' && r.objectId ? <Link to={`/tasks/${r.objectId}`}>task #{r.objectId}</Link> : `${r.objectType}${r.objectId ? ` ${r.objectId}` : ''}`) },
        { header: 'Change', cell: (r) => <ChangeList changes={changesOf(r.before, r.after)} /> },
      ]}
    />
  );
}
