import { useState, type FormEvent } from 'react';
import { ApiError, del, get, patch, post } from '../api';
import { ErrorBox, Field, PageHeader, useToast } from '../components';
import { fmtAgo, fmtTime } from '../format';
import { useInterval, useLoad, useNow } from '../hooks';
import type { ApiKey, EngineGroup, EngineNode, RotatedExecutorSecret, Tenant } from '../model';
import type { Session } from '../api';
import { RotatedSecret, RotateSecretForm } from '../RotateSecretForm';
import { SecretBox } from '../SecretBox';

/** Operators: tenants, engine groups, engine nodes, API keys. Tenant admins: their tenant's API keys. */
export function OperatorPage({ role }: { role: Session['user']['role'] }) {
  const operator = role === 'OPERATOR';
  return (
    <>
      <PageHeader title="Operator" />
      {operator ? (
        <>
          <EngineNodesSection />
          <TenantsSection />
          <EngineGroupsSection />
          <ApiKeysSection base="/operator/api-keys" operator />
        </>
      ) : role === 'TENANT_ADMIN' ? (
        <>
          <p className="muted">Tenants, engine groups and engine nodes are managed by an operator login. Your tenant's API keys:</p>
          <ApiKeysSection base="/api-keys" operator={false} />
        </>
      ) : (
        <p className="muted">API keys and the cluster are managed by tenant admins and operators.</p>
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
      <h2 id="nodes-h">Engine nodes</h2>
      <ErrorBox error={nodes.error} />
      <div className="table-wrap">
        <table className="data" aria-label="Engine nodes">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Groups</th>
              <th scope="col">Host / pid</th>
              <th scope="col">Slots</th>
              <th scope="col">State</th>
              <th scope="col">Last heartbeat</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {(nodes.data ?? []).map((n) => (
              <tr key={n.id}>
                <td className="mono small">{n.id}</td>
                <td>{n.groups.join(', ')}</td>
                <td className="small">
                  {n.host} / {n.pid}
                </td>
                <td>{n.slots}</td>
                <td>
                  <span className={`badge ${n.state === 'UP' || n.state === 'ALIVE' || n.state === 'RUNNING' ? 'online' : 'offline'}`}>{n.state}</span>
                </td>
                <td title={fmtTime(n.heartbeatAt)}>{fmtAgo(n.heartbeatAt, now)}</td>
                <td className="small">{fmtTime(n.startedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function TenantsSection() {
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
      const t = await post<Tenant>('/operator/tenants', withAdmin ? { ...form, admin } : form);
      setErrors({});
      setAdmin({ username: '', password: '' });
      setCreated(t.executorSecret ? { tenantId: t.id, secret: t.executorSecret } : null);
      toast.notify(t.admin ? `Tenant ${t.id} created, with admin ${t.admin.username}` : `Tenant ${t.id} created`);
      await tenants.reload();
    } catch (err) {
      setErrors(err instanceof ApiError ? { ...err.fieldErrors(), _: err.body.message } : { _: (err as Error).message });
    }
  };
  return (
    <section aria-labelledby="tenants-h">
      <h2 id="tenants-h">Tenants</h2>
      <div className="table-wrap">
        <table className="data" aria-label="Tenants">
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Name</th>
              <th scope="col">Engine group</th>
              <th scope="col">Rate / burst</th>
              <th scope="col">Executor networks</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {(tenants.data ?? []).map((t) => (
              <tr key={t.id}>
                <td>{t.id}</td>
                <td>{t.name}</td>
                <td>{t.engineGroup}</td>
                <td>
                  {t.ratePerSec}/s · {t.burst}
                </td>
                <td className="small mono">{t.executorNetworks?.join(', ') ?? <span className="muted">any</span>}</td>
                <td className="small">{fmtTime(t.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form className="filters" onSubmit={(e) => void submit(e)} aria-label="Create a tenant">
        <Field label="Tenant id" error={errors.id}>
          {(p) => <input {...p} name="tenantId" value={form.id} onChange={(e) => setForm({ ...form, id: e.target.value })} />}
        </Field>
        <Field label="Tenant name" error={errors.name}>
          {(p) => <input {...p} name="tenantName" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}
        </Field>
        <Field label="Engine group" error={errors.engineGroup}>
          {(p) => <input {...p} name="engineGroup" value={form.engineGroup} onChange={(e) => setForm({ ...form, engineGroup: e.target.value })} />}
        </Field>
        <Field label="First admin username" error={errors['admin.username'] ?? errors.admin}>
          {(p) => <input {...p} name="adminUsername" autoComplete="off" value={admin.username} onChange={(e) => setAdmin({ ...admin, username: e.target.value })} />}
        </Field>
        <Field label="First admin password" error={errors['admin.password']}>
          {(p) => <input {...p} name="adminPassword" type="password" autoComplete="new-password" value={admin.password} onChange={(e) => setAdmin({ ...admin, password: e.target.value })} />}
        </Field>
        <div className="field field-button">
          <button type="submit">Create tenant</button>
        </div>
      </form>
      {errors._ ? (
        <div className="error-box" role="alert">
          {errors._}
        </div>
      ) : null}
      {created ? <SecretBox label={`Executor secret of ${created.tenantId}`} secret={created.secret} /> : null}
      <OperatorSecretRotation tenantIds={(tenants.data ?? []).map((t) => t.id)} />
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
  const [error, setError] = useState<string | undefined>();
  const chosen = tenants.find((t) => t.id === tenantId) ?? tenants[0];
  if (!chosen) return null;
  const shown = text ?? chosen.executorNetworks?.join(', ') ?? '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const entries = shown.split(/[\s,]+/).filter((entry) => entry !== '');
    try {
      await patch<Tenant>(`/operator/tenants/${encodeURIComponent(chosen.id)}`, { executorNetworks: entries.length > 0 ? entries : null });
      setError(undefined);
      setText(null);
      toast.notify(entries.length > 0 ? `Executors of ${chosen.id} limited to ${entries.join(', ')}` : `Executors of ${chosen.id} may live anywhere`);
      onSaved();
    } catch (err) {
      setError(err instanceof ApiError ? err.body.message : (err as Error).message);
    }
  };
  return (
    <form className="filters" onSubmit={(e) => void submit(e)} aria-label="Executor networks">
      <Field label="Tenant of the executors">
        {(p) => (
          <select
            {...p}
            value={chosen.id}
            onChange={(e) => {
              setTenantId(e.target.value);
              setText(null);
            }}
          >
            {tenants.map((t) => (
              <option key={t.id} value={t.id}>
                {t.id}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Allowed executor networks" error={error} className="field-wide" hint="CIDR ranges, addresses, host names, *.domain; empty: any. Link-local and metadata addresses are always refused.">
        {(p) => <input {...p} name="executorNetworks" placeholder="any (e.g. 10.0.0.0/8, *.svc.cluster.local)" value={shown} onChange={(e) => setText(e.target.value)} />}
      </Field>
      <div className="field field-button">
        <button type="submit">Save networks</button>
      </div>
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

function EngineGroupsSection() {
  const groups = useLoad(() => get<EngineGroup[]>('/operator/engine-groups'), []);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await post('/operator/engine-groups', { name });
      setName('');
      setError(null);
      await groups.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section aria-labelledby="groups-h">
      <h2 id="groups-h">Engine groups</h2>
      <div className="table-wrap">
        <table className="data" aria-label="Engine groups">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Description</th>
              <th scope="col">Tenants</th>
            </tr>
          </thead>
          <tbody>
            {(groups.data ?? []).map((g) => (
              <tr key={g.name}>
                <td>{g.name}</td>
                <td>{g.description}</td>
                <td>{g.tenants.join(', ') || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form className="filters" onSubmit={(e) => void submit(e)} aria-label="Create an engine group">
        <Field label="Group name" error={error ?? undefined}>
          {(p) => <input {...p} name="groupName" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <div className="field field-button">
          <button type="submit">Create group</button>
        </div>
      </form>
    </section>
  );
}

function ApiKeysSection({ base, operator }: { base: string; operator: boolean }) {
  const toast = useToast();
  const keys = useLoad(() => get<ApiKey[]>(base), [base]);
  const [form, setForm] = useState({ name: '', role: 'TENANT_VIEWER', tenantId: '' });
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const k = await post<ApiKey>(base, operator ? form : { name: form.name, role: form.role });
      setCreated(k.key ?? null);
      setError(null);
      await keys.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const revoke = async (k: ApiKey) => {
    try {
      await del(`${base}/${k.id}`);
      toast.notify(`Key ${k.name} revoked`);
      await keys.reload();
    } catch (err) {
      toast.notify((err as Error).message, 'error');
    }
  };
  const list = Array.isArray(keys.data) ? keys.data : ((keys.data as unknown as { items?: ApiKey[] })?.items ?? []);
  return (
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">API keys</h2>
      <ErrorBox error={keys.error} />
      <div className="table-wrap">
        <table className="data" aria-label="API keys">
          <thead>
            <tr>
              {operator ? <th scope="col">Tenant</th> : null}
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Role</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {list.map((k) => (
              <tr key={k.id}>
                {operator ? <td>{k.tenantId}</td> : null}
                <td>{k.name}</td>
                <td className="mono">{k.prefix}…</td>
                <td>{k.role}</td>
                <td className="small">{fmtTime(k.createdAt)}</td>
                <td>
                  {k.revokedAt ? (
                    `revoked ${fmtTime(k.revokedAt)}`
                  ) : (
                    <button type="button" className="btn-small" onClick={() => void revoke(k)} aria-label={`Revoke key ${k.name}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form className="filters" onSubmit={(e) => void submit(e)} aria-label="Create an API key">
        {operator ? (
          <Field label="Key tenant">{(p) => <input {...p} name="keyTenant" value={form.tenantId} onChange={(e) => setForm({ ...form, tenantId: e.target.value })} />}</Field>
        ) : null}
        <Field label="Key name">{(p) => <input {...p} name="keyName" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />}</Field>
        <Field label="Key role">
          {(p) => (
            <select {...p} name="keyRole" value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })}>
              <option>TENANT_VIEWER</option>
              <option>TENANT_ADMIN</option>
            </select>
          )}
        </Field>
        <div className="field field-button">
          <button type="submit">Create key</button>
        </div>
      </form>
      {error ? (
        <div className="error-box" role="alert">
          {error}
        </div>
      ) : null}
      {created ? (
        <p className="notice" role="status">
          New key (shown once): <code className="mono">{created}</code>
        </p>
      ) : null}
    </section>
  );
}
