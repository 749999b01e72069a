import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { fmtTime } from '../../shared/format';
import { t } from '../../shared/i18n/i18n';
import type { AuditRecord } from '../../shared/model';
import { Link } from '../../shared/router';
import { ApplyRecord, applyRecordOf } from './ApplyRecord';
import { ChangeList } from './ChangeList';
import { changesOf } from './changes';
import './audit.css';

/** Audit records as a table: when, who (and from where), what, the object, and what changed. */
export function AuditTable({ rows, showTenant, empty }: { rows: readonly AuditRecord[] | undefined; showTenant: boolean; empty: string }) {
  return (
    <DataTable
      label={t('Audit records')}
      rows={rows}
      rowKey={(r) => r.id}
      rowProps={(r) => ({ 'data-audit-row': r.id, 'data-audit-action': r.action })}
      empty={<EmptyState title={empty}>{t('Every change made through the console or the API is recorded here: who, when, from where, before and after.')}</EmptyState>}
      columns={[
        { header: t('When'), className: 'small', cell: (r) => fmtTime(r.at) },
        showTenant && { header: t('Tenant'), cell: (r) => r.tenantId ?? '—' },
        {
          header: t('Who'),
          cell: (r) => (
            <span title={r.actor.kind === 'apiKey' ? t('API key') : r.actor.kind === 'anonymous' ? t('Not logged in') : r.actor.kind === 'inboundWebhook' ? t('Inbound webhook delivery') : r.actor.kind === 'engine' ? t('Baton (an approval deadline)') : t('User')}>
              <span translate="no">{r.actor.name}</span>
              {r.actor.address ? <span className="muted small"> · {r.actor.address}</span> : null}
            </span>
          ),
        },
        { header: t('Action'), cell: (r) => <code>{r.action}</code> },
        { header: t('Object'), cell: (r) => (r.objectType === 'task' && r.objectId ? <Link to={`/tasks/${r.objectId}`}>{t('task #{{id}}', { id: r.objectId })}</Link> : <code>{`${r.objectType}${r.objectId ? ` ${r.objectId}` : ''}`}</code>) },
        {
          header: t('Change'),
          cell: (r) => {
            const applied = r.action === 'config.apply' ? applyRecordOf(r.after) : null;
            return applied ? <ApplyRecord record={applied} /> : <ChangeList changes={changesOf(r.before, r.after)} />;
          },
        },
      ]}
    />
  );
}
