import { useState } from 'react';
import { get, qs } from '../../shared/api';
import { ErrorBox, Field, PageHeader } from '../../shared/components';
import { FilterBar } from '../../shared/FilterBar';
import { fromLocalInput } from '../../shared/format';
import { useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import type { AuditRecord, Page } from '../../shared/model';
import { AuditTable } from './AuditTable';
import { CursorPager, useCursorPages } from '../../shared/CursorPager';

/** The audit log: a tenant admin's tenant, or (operator) every tenant's, with filters and a JSON lines export. */
export function AuditPage({ operator }: { operator: boolean }) {
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const [objectType, setObjectType] = useState('');
  const [objectId, setObjectId] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [tenantId, setTenantId] = useState('');
  const pages = useCursorPages();
  const base = operator ? '/operator/audit' : '/audit';
  const filters = {
    actor: actor.trim(),
    action: action.trim(),
    objectType: objectType.trim(),
    objectId: objectType.trim() ? objectId.trim() : '',
    from: from ? (fromLocalInput(from) ?? undefined) : undefined,
    to: to ? (fromLocalInput(to) ?? undefined) : undefined,
    tenantId: operator ? tenantId.trim() : undefined,
  };
  const key = JSON.stringify(filters);
  const { cursor } = pages;
  const records = useLoad(() => get<Page<AuditRecord>>(`${base}${qs({ ...filters, cursor, limit: 100 })}`), [key, cursor]);
  const filter = (set: (v: string) => void) => (value: string) => {
    pages.reset();
    set(value);
  };
  return (
    <>
      <PageHeader title={t('Audit log')}>
        <a className="btn" href={`/api${base}/export${qs(filters)}`} download="audit.jsonl">
          {t('Export (JSON lines)')}
        </a>
      </PageHeader>
      <FilterBar label={t('Filter audit records')}>
        {operator ? (
          <Field label={t('Tenant')}>{(p) => <input {...p} name="tenantId" value={tenantId} onChange={(e) => filter(setTenantId)(e.target.value)} placeholder={t('every tenant')} />}</Field>
        ) : null}
        <Field label={t('Who')}>{(p) => <input {...p} name="actor" value={actor} onChange={(e) => filter(setActor)(e.target.value)} placeholder={t('username or api-key:name')} />}</Field>
        <Field label={t('Action')}>{(p) => <input {...p} name="action" value={action} onChange={(e) => filter(setAction)(e.target.value)} placeholder="task.update" />}</Field>
        <Field label={t('Object type')}>{(p) => <input {...p} name="objectType" value={objectType} onChange={(e) => filter(setObjectType)(e.target.value)} />}</Field>
        <Field label={t('Object id')}>{(p) => <input {...p} name="objectId" value={objectId} disabled={!objectType.trim()} onChange={(e) => filter(setObjectId)(e.target.value)} />}</Field>
        <Field label={t('From')}>{(p) => <input {...p} type="datetime-local" name="from" value={from} onChange={(e) => filter(setFrom)(e.target.value)} />}</Field>
        <Field label={t('To')}>{(p) => <input {...p} type="datetime-local" name="to" value={to} onChange={(e) => filter(setTo)(e.target.value)} />}</Field>
      </FilterBar>
      <ErrorBox error={records.error} />
      <AuditTable rows={records.data?.items} showTenant={operator} empty={t('No audit records match.')} />
      <CursorPager pages={pages} nextCursor={records.data?.nextCursor} backLabel={t('Newer')} onLabel={t('Older')} />
    </>
  );
}
