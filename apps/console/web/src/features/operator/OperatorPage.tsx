import { useState, type FormEvent } from 'react';
import { del, get, patch, post } from '../../shared/api';
import { LoadTable } from '../executors/LoadTable';
import { ErrorBox, Field, PageHeader, Time, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { errorsOf } from '../../shared/form-errors';
import { fmtNumber, fmtSince, fmtTime } from '../../shared/format';
import { useInterval, useLoad, useNow } from '../../shared/hooks';
import type { ApiKey, CreatedApiKey, CreatedTenant, EngineGroup, EngineNode, RotatedExecutorSecret, Tenant } from '../../shared/model';
import type { Session } from '../../shared/api';
import { RotatedSecret, RotateSecretForm } from '../executors/RotateSecretForm';
import { SecretBox } from '../../shared/SecretBox';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';

/** Operators: tenants, engine groups, engine nodes, API keys. Tenant admins: their tenant's API keys. */
export function OperatorPage({ role }: { role: Session['user']['role'] }) {
  const operator = role === 'OPERATOR';
  // A tenant created joins its engine group: the groups' tenant lists are read again then.
  const [tenantsMade, setTenantsMade] = useState(0);
  return (
    <>
      <PageHeader title={operator ? t('Operator') : t('API keys')} />
      {operator ? (
        <>
          <EngineNodesSection />
          <section aria-labelledby="load-h">
            <h2 id="load-h">{t('Tenant load')}</h2>
            <LoadTable operator />
          </section>
          <TenantsSection onCreated={() => setTenantsMade((n) => n + 1)} />
          <EngineGroupsSection tenantsMade={tenantsMade} />
          <ApiKeysSection base="/operator/api-keys" operator />
        </>
      ) : role === 'TENANT_ADMIN' ? (
        <>
          <p className="muted">{t("Keys for scripts and CI that call the console API as your tenant. (Tenants, engine groups and engine nodes are managed by an operator login.)")}</p>
          <ApiKeysSection base="/api-keys" operator={false} />
        </>
      ) : (
        <p className="muted">{t('API keys and the cluster are managed by tenant admins and operators.')}</p>
      )}
    </>
  );
}

function EngineNodesSection() {
  const nodes = useLoad(() => get<EngineNode[]>('/operator/engine-nodes'), []);
  useInterval(() => void nodes.reload(), 2000);
  const now = useNow(1000);
  return (
    <section aria-labelledby="nodes-h">
      <h2 id="nodes-h">{t('Engine nodes')}</h2>
      <ErrorBox error={nodes.error} />
      <DataTable
        label={t('Engine nodes')}
        rows={nodes.data}
        rowKey={(n) => n.id}
        empty={<EmptyState title={t('No engine node is up.')}>{t('Start an engine (npm run start:engine); it registers here with its groups.')}</EmptyState>}
        columns={[
          { header: t('Node'), className: 'mono small', cell: (n) => n.id },
          { header: t('Groups'), cellProps: () => ({ translate: 'no' as const }), cell: (n) => n.groups.join(', ') },
          { header: t('Host / pid'), className: 'small', cellProps: () => ({ translate: 'no' as const }), cell: (n) => `${n.host} / ${n.pid}` },
          { header: t('Slots'), cell: (n) => n.slots },
          { header: t('State'), cell: (n) => <span className={`badge ${n.state === 'UP' || n.state === 'ALIVE' || n.state === 'RUNNING' ? 'online' : 'offline'}`}>{codeLabel(n.state)}</span> },
          { header: t('Last heartbeat'), cellProps: (n) => ({ title: fmtTime(n.heartbeatAt) }), cell: (n) => fmtSince(n.heartbeatAt, now) },
          { header: t('Clock offset (ms)'), className: 'small', cellProps: () => ({ title: t("Database's clock minus the engine's, at its last heartbeat: the engine schedules corrected by it") }), cell: (n) => (n.clockOffsetMs === null ? '—' : String(n.clockOffsetMs)) },
          { header: t('Started'), className: 'small', cell: (n) => <Time ms={n.startedAt} /> },
        ]}
      />
    </section>
  );
}

function TenantsSection({ onCreated }: { onCreated: () => void }) {
  const toast = useToast();
  const tenants = useLoad(() => get<Tenant[]>('/operator/tenants'), []);
  const [form, setForm] = useState({ id: '', name: '', engineGroup: 'default' });
  // The tenant's first TENANT_ADMIN, created with it (both or neither); left empty: no user yet.
  const [admin, setAdmin] = useState({ username: '', password: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<{ tenantId: string; secret: string } | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const withAdmin = admin.username !== '' || admin.password !== '';
      const made = await post<CreatedTenant>('/operator/tenants', withAdmin ? { ...form, admin } : form);
      setErrors({});
      setAdmin({ username: '', password: '' });
      setCreated(made.executorSecret ? { tenantId: made.id, secret: made.executorSecret } : null);
      toast.notify(made.admin ? t('Tenant {{id}} created, with admin {{admin}}', { id: made.id, admin: made.admin.username }) : t('Tenant {{id}} created', { id: made.id }));
      await tenants.reload();
      onCreated();
    } catch (err) {
      setErrors(errorsOf(err, ['id', 'name', 'engineGroup', 'admin', 'admin.username', 'admin.password']));
    }
  };
  return (
    <section aria-labelledby="tenants-h">
      <h2 id="tenants-h">{t('Tenants')}</h2>
      <DataTable
        label={t('Tenants')}
        rows={tenants.data}
        rowKey={(x) => x.id}
        empty={<EmptyState title={t('No tenant yet.')}>{t('Create the first one below; its executor secret is shown once.')}</EmptyState>}
        columns={[
          { header: t('Id'), cellProps: () => ({ translate: 'no' as const }), cell: (x) => x.id },
          { header: t('Name'), cellProps: () => ({ translate: 'no' as const }), cell: (x) => x.name },
          { header: t('Engine group'), cellProps: () => ({ translate: 'no' as const }), cell: (x) => x.engineGroup },
          { header: t('Rate / burst'), cell: (x) => `${fmtNumber(x.ratePerSec)}/s · ${fmtNumber(x.burst)}` },
          { header: t('Claim share'), cell: (x) => x.claimShare },
          { header: t('Executor networks'), className: 'small mono', cell: (x) => x.executorNetworks?.join(', ') ?? <span className="muted">{t('any')}</span> },
          {
            header: t('Metrics label'),
            className: 'small mono',
            cellProps: () => ({ translate: 'no' as const, title: t("The tenant's label on the engines' /metrics when it needs no token (with BATON_METRICS_TOKEN: its id)") }),
            cell: (x) => x.metricsLabel ?? '—',
          },
          { header: t('Created'), className: 'small', cell: (x) => <Time ms={x.createdAt} /> },
        ]}
      />
      <form className="filters" onSubmit={(e) => void submit(e)} aria-label={t('Create a tenant')}>
        <Field label={t('Tenant id')} error={errors.id}>
          {(p) => <input {...p} name="tenantId" value={form.id} onChange={(e) => setForm({ ...form, id: e.target.value })} />}
        </Field>
        <Field label={t('Tenant name')} error={errors.name}>
          {(p) => <input {...p} name="tenantName" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
        </Field>
        <Field label={t('Engine group')} error={errors.engineGroup}>
          {(p) => <input {...p} name="engineGroup" value={form.engineGroup} onChange={(e) => setForm({ ...form, engineGroup: e.target.value })} />}
        </Field>
        <Field label={t('First admin username')} error={errors['admin.username'] ?? errors.admin}>
          {(p) => <input {...p} name="adminUsername" autoComplete="off" value={admin.username} onChange={(e) => setAdmin({ ...admin, username: e.target.value })} />}
        </Field>
        <Field label={t('First admin password')} error={errors['admin.password']}>
          {(p) => <input {...p} name="adminPassword" type="password" autoComplete="new-password" value={admin.password} onChange={(e) => setAdmin({ ...admin, password: e.target.value })} />}
        </Field>
        <div className="field field-button">
          <button type="submit">{t('Create tenant')}</button>
        </div>
      </form>
      <ErrorBox error={errors._} />
      {created ? <SecretBox label={t('Executor secret of {{tenant}}', { tenant: created.tenantId })} secret={created.secret} /> : null}
      <OperatorSecretRotation tenantIds={(tenants.data ?? []).map((x) => x.id)} />
      <ExecutorNetworksForm tenants={tenants.data ?? []} onSaved={() => void tenants.reload()} />
    </section>
  );
}

/**
 * Where a tenant's executors may live: networks and host names, comma- or space-separated;
 * empty allows any URL. Link-local and metadata addresses are refused whatever is entered.
 */
function ExecutorNetworksForm({ tenants, onSaved }: { tenants: Tenant[]; onSaved: () => void }) {
  const toast = useToast();
  const [tenantId, setTenantId] = useState('');
  const [text, setText] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const chosen = tenants.find((x) => x.id === tenantId) ?? tenants[0];
  if (!chosen) return null;
  const shown = text ?? chosen.executorNetworks?.join(', ') ?? '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const entries = shown.split(/[\s,]+/).filter((entry) => entry !== '');
    try {
      await patch<Tenant>(`/operator/tenants/${encodeURIComponent(chosen.id)}`, { executorNetworks: entries.length > 0 ? entries : null });
      setErrors({});
      setText(null);
      toast.notify(entries.length > 0 ? t('Executors of {{tenant}} limited to {{networks}}', { tenant: chosen.id, networks: entries.join(', ') }) : t('Executors of {{tenant}} may live anywhere', { tenant: chosen.id }));
      onSaved();
    } catch (err) {
      setErrors(errorsOf(err, ['executorNetworks']));
    }
  };
  return (
    <form className="filters" onSubmit={(e) => void submit(e)} aria-label={t('Executor networks')}>
      <Field label={t('Tenant of the executors')}>
        {(p) => (
          <select
            {...p}
            value={chosen.id}
            onChange={(e) => {
              setTenantId(e.target.value);
              setText(null);
            }}
          >
            {tenants.map((x) => (
              <option key={x.id} value={x.id}>
                {x.id}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('Allowed executor networks')} error={errors.executorNetworks} className="field-wide" hint={t('CIDR ranges, addresses, host names, *.domain — where executors may live and which private ranges webhooks may reach. Empty: executors anywhere, webhooks to public addresses only. Link-local and metadata addresses are always refused.')}>
        {(p) => <input {...p} name="executorNetworks" placeholder={t('any (e.g. 10.0.0.0/8, *.svc.cluster.local)')} value={shown} onChange={(e) => setText(e.target.value)} />}
      </Field>
      <div className="field field-button">
        <button type="submit">{t('Save networks')}</button>
      </div>
      <ErrorBox error={errors._} />
    </form>
  );
}

/** An operator rotates any tenant's executor secret (a tenant admin does it on the Executors page). */
function OperatorSecretRotation({ tenantIds }: { tenantIds: string[] }) {
  const [rotated, setRotated] = useState<RotatedExecutorSecret | null>(null);
  if (tenantIds.length === 0) return null;
  return (
    <>
      <RotateSecretForm tenantIds={tenantIds} onRotated={setRotated} />
      {rotated ? <RotatedSecret rotated={rotated} /> : null}
    </>
  );
}

function EngineGroupsSection({ tenantsMade }: { tenantsMade: number }) {
  const groups = useLoad(() => get<EngineGroup[]>('/operator/engine-groups'), [tenantsMade]);
  // Read again as the engine nodes are: an engine that stops leaves its group's tenants unserved.
  useInterval(() => void groups.reload(), 5000);
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await post('/operator/engine-groups', { name });
      setName('');
      setErrors({});
      await groups.reload();
    } catch (err) {
      setErrors(errorsOf(err, ['name']));
    }
  };
  return (
    <section aria-labelledby="groups-h">
      <h2 id="groups-h">{t('Engine groups')}</h2>
      <DataTable
        label={t('Engine groups')}
        rows={groups.data}
        rowKey={(g) => g.name}
        rowProps={(g) => ({ 'data-engine-group': g.name })}
        empty={<EmptyState title={t('No engine group yet.')}>{t('Create one below, then start engines in it and give tenants to it.')}</EmptyState>}
        columns={[
          { header: t('Group'), cellProps: () => ({ translate: 'no' as const }), cell: (g) => g.name },
          { header: t('Description'), cellProps: () => ({ translate: 'no' as const }), cell: (g) => g.description },
          { header: t('Tenants'), cellProps: () => ({ translate: 'no' as const }), cell: (g) => g.tenants.join(', ') || '—' },
          {
            header: t('Live engines'),
            cellProps: (g) => ({ 'data-live-engines': g.liveEngines }),
            cell: (g) =>
              g.liveEngines === 0 && g.tenants.length > 0 ? (
                <span className="badge offline" data-unserved title={t("No engine serving this group has sent a heartbeat lately: its tenants' tasks do not fire and their runs wait until one starts.")}>
                  {t('none: tenants not served')}
                </span>
              ) : (
                g.liveEngines
              ),
          },
        ]}
      />
      <form className="filters" onSubmit={(e) => void submit(e)} aria-label={t('Create an engine group')}>
        <Field label={t('Group name')} error={errors.name}>
          {(p) => <input {...p} name="groupName" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <div className="field field-button">
          <button type="submit">{t('Create group')}</button>
        </div>
      </form>
      <ErrorBox error={errors._} />
    </section>
  );
}

/** Who made a key: it dies when that user is disabled, deleted or demoted below the key's role. */
function KeyOwner({ apiKey }: { apiKey: ApiKey }) {
  if (apiKey.ownerUsername !== null) return (
      <span data-key-owner={apiKey.ownerUsername} translate="no">
        {apiKey.ownerUsername}
      </span>
    );
  if (apiKey.ownerUserId !== null) return <span className="muted">{t('deleted user #{{id}}', { id: apiKey.ownerUserId })}</span>;
  return (
    <span className="muted" title={t('Made before keys recorded their owner: it works until revoked, and cannot make keys')}>
      {t('unknown (older key)')}
    </span>
  );
}

function ApiKeysSection({ base, operator }: { base: string; operator: boolean }) {
  const toast = useToast();
  const keys = useLoad(() => get<ApiKey[]>(base), [base]);
  const [form, setForm] = useState({ name: '', role: 'TENANT_VIEWER', tenantId: '' });
  const [created, setCreated] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const k = await post<CreatedApiKey>(base, operator ? form : { name: form.name, role: form.role });
      setCreated(k.key ?? null);
      setErrors({});
      await keys.reload();
    } catch (err) {
      setErrors(errorsOf(err, ['tenantId', 'name', 'role']));
    }
  };
  const revoke = async (k: ApiKey) => {
    try {
      await del(`${base}/${k.id}`);
      toast.notify(t('Key {{name}} revoked', { name: k.name }));
      await keys.reload();
    } catch (err) {
      toast.notify((err as Error).message, 'error');
    }
  };
  return (
    // A tenant admin's page is the keys alone: its title names them, no second heading.
    <section aria-labelledby={operator ? 'keys-h' : undefined} aria-label={operator ? undefined : t('API keys')}>
      {operator ? <h2 id="keys-h">{t('API keys')}</h2> : null}
      <ErrorBox error={keys.error} />
      <DataTable
        label={t('API keys')}
        rows={keys.data}
        rowKey={(k) => k.id}
        empty={<EmptyState title={t('No API key yet.')}>{t('Create one below for scripts and CI that call the console API; it is shown once.')}</EmptyState>}
        columns={[
          operator && { header: t('Tenant'), cellProps: () => ({ translate: 'no' as const }), cell: (k) => k.tenantId },
          { header: t('Name'), cellProps: () => ({ translate: 'no' as const }), cell: (k) => k.name },
          { header: t('Prefix'), className: 'mono', cell: (k) => `${k.prefix}…` },
          { header: t('Role'), cell: (k) => codeLabel(k.role) },
          { header: t('Owner'), cell: (k) => <KeyOwner apiKey={k} /> },
          { header: t('Created'), className: 'small', cell: (k) => <Time ms={k.createdAt} /> },
          {
            header: t('Status'),
            cell: (k) =>
              k.revokedAt ? (
                t('revoked {{time}}', { time: fmtTime(k.revokedAt) })
              ) : (
                <button type="button" className="btn-small" onClick={() => void revoke(k)} aria-label={t('Revoke key {{name}}', { name: k.name })}>
                  {t('Revoke')}
                </button>
              ),
          },
        ]}
      />
      <form className="filters" onSubmit={(e) => void submit(e)} aria-label={t('Create an API key')}>
        {operator ? (
          <Field label={t('Key tenant')} error={errors.tenantId}>{(p) => <input {...p} name="keyTenant" value={form.tenantId} onChange={(e) => setForm({ ...form, tenantId: e.target.value })} />}</Field>
        ) : null}
        <Field label={t('Key name')} error={errors.name}>{(p) => <input {...p} name="keyName" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}</Field>
        <Field label={t('Key role')} error={errors.role}>
          {(p) => (
            <select {...p} name="keyRole" value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })}>
              <option value="TENANT_VIEWER">{codeLabel('TENANT_VIEWER')}</option>
              <option value="TENANT_ADMIN">{codeLabel('TENANT_ADMIN')}</option>
            </select>
          )}
        </Field>
        <div className="field field-button">
          <button type="submit">{t('Create key')}</button>
        </div>
      </form>
      <ErrorBox error={errors._} />
      {created ? (
        <p className="notice" role="status">
          {t('New key (shown once):')} <code className="mono">{created}</code>
        </p>
      ) : null}
    </section>
  );
}
