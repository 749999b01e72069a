import { useState, type FormEvent } from 'react';
import { get, patch, post, qs, type Session } from '../../shared/api';
import { CodeOptions, ErrorBox, Field, PageHeader, Time, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { FilterBar } from '../../shared/FilterBar';
import { errorsOf } from '../../shared/form-errors';

import { useLoad } from '../../shared/hooks';
import type { Tenant, User } from '../../shared/model';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';

type Role = User['role'];
const TENANT_ROLES: Role[] = ['TENANT_VIEWER', 'TENANT_ADMIN'];

/**
 * Users. A tenant admin: the users of its tenant. The operator: the users of every tenant (and
 * the operators), filtered by tenant. Create, change a tenant user's role, disable/enable, reset
 * a password (one's own with the current one). Nobody demotes or disables themselves (the API
 * refuses it too).
 */
export function UsersPage({ operator, me }: { operator: boolean; me: Session['user'] }) {
  const toast = useToast();
  const [tenantFilter, setTenantFilter] = useState('');
  const base = operator ? '/operator/users' : '/users';
  const users = useLoad(() => get<User[]>(`${base}${operator ? qs({ tenantId: tenantFilter }) : ''}`), [base, tenantFilter]);
  const tenants = useLoad(() => (operator ? get<Tenant[]>('/operator/tenants') : Promise.resolve([] as Tenant[])), [operator]);
  const [resetting, setResetting] = useState<number | null>(null);
  // A name is unique within its tenant only: the operator lists every tenant's users.
  const isMe = (u: User) => u.username === me.username && u.tenantId === me.tenantId;

  const change = async (u: User, body: { role?: Role; disabled?: boolean }, done: string) => {
    try {
      await patch<User>(`${base}/${u.id}`, body);
      toast.notify(done);
      await users.reload();
    } catch (err) {
      toast.notify((err as Error).message, 'error');
    }
  };

  return (
    <>
      <PageHeader title={t('Users')} />
      {operator ? (
        <FilterBar label={t('Filter users')}>
          <Field label={t('Tenant filter')}>
            {(p) => (
              <select {...p} name="tenantFilter" value={tenantFilter} onChange={(e) => setTenantFilter(e.target.value)}>
                <option value="">{t('Every tenant and the operators')}</option>
                {(tenants.data ?? []).map((x) => (
                  <option key={x.id} value={x.id}>
                    {x.id}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </FilterBar>
      ) : null}
      <ErrorBox error={users.error} />
      <DataTable
        label={t('Users')}
        rows={users.data}
        rowKey={(u) => u.id}
        rowProps={(u) => ({ 'data-user': u.username })}
        empty={<EmptyState title={tenantFilter ? t('No users in tenant {{tenant}}.', { tenant: tenantFilter }) : t('No users.')}>{t('Create one with the New user form below.')}</EmptyState>}
        columns={[
          {
            header: t('Username'),
            cell: (u) => (
              <>
                <span translate="no">{u.username}</span>
                {isMe(u) ? <span className="muted"> {t('(you)')}</span> : null}
              </>
            ),
          },
          operator && { header: t('Tenant'), cellProps: () => ({ translate: 'no' as const }), cell: (u) => u.tenantId ?? '—' },
          {
            header: t('Role'),
            cell: (u) =>
              u.role === 'OPERATOR' || isMe(u) ? (
                codeLabel(u.role)
              ) : (
                <select
                  name="role"
                  aria-label={t('Role of {{user}}', { user: u.username })}
                  value={u.role}
                  onChange={(e) => void change(u, { role: e.target.value as Role }, t('{{user}} is now {{role}}', { user: u.username, role: codeLabel(e.target.value) }))}
                >
                  <CodeOptions codes={TENANT_ROLES} />
                </select>
              ),
          },
          { header: t('Status'), cell: (u) => <span className={`badge ${u.disabled ? 'offline' : 'online'}`}>{u.disabled ? t('disabled') : t('active')}</span> },
          { header: t('Created'), className: 'small', cell: (u) => <Time ms={u.createdAt} /> },
          {
            header: t('Actions'),
            cell: (u) => (
              <>
                {isMe(u) ? null : (
                  <button
                    type="button"
                    className="btn-small"
                    aria-label={u.disabled ? t('Enable {{user}}', { user: u.username }) : t('Disable {{user}}', { user: u.username })}
                    onClick={() => void change(u, { disabled: !u.disabled }, u.disabled ? t('{{user}} enabled', { user: u.username }) : t('{{user}} disabled', { user: u.username }))}
                  >
                    {u.disabled ? t('Enable') : t('Disable')}
                  </button>
                )}{' '}
                {/* A single sign-on user has no Baton password of its own to set (the API refuses it). */}
                {isMe(u) && me.sso ? null : (
                  <button type="button" className="btn-small" aria-label={t('Reset the password of {{user}}', { user: u.username })} onClick={() => setResetting(resetting === u.id ? null : u.id)}>
                    {t('Reset password')}
                  </button>
                )}
                {resetting === u.id ? <ResetPasswordForm user={u} base={base} own={isMe(u)} onDone={() => setResetting(null)} /> : null}
              </>
            ),
          },
        ]}
      />
      <CreateUserForm operator={operator} base={base} tenantFilter={tenantFilter} onCreated={() => void users.reload()} />
    </>
  );
}

/** A user's new password; one's own (`own`) with the current one, which the API asks for (the calling session stays). */
function ResetPasswordForm({ user, base, own, onDone }: { user: User; base: string; own: boolean; onDone: () => void }) {
  const toast = useToast();
  const [password, setPassword] = useState('');
  const [currentPassword, setCurrentPassword] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await post(`${base}/${user.id}/password`, own ? { password, currentPassword } : { password });
      toast.notify(own ? t('Password changed; your other sessions were logged out') : t('Password of {{user}} set; their sessions ended', { user: user.username }));
      onDone();
    } catch (err) {
      setErrors(errorsOf(err, ['password', 'currentPassword']));
    }
  };
  return (
    <form className="filters" onSubmit={(e) => void submit(e)} aria-label={t('New password for {{user}}', { user: user.username })}>
      {own ? (
        <Field label={t('Current password')} error={errors.currentPassword}>
          {(p) => <input {...p} name="currentPassword" type="password" autoComplete="current-password" value={currentPassword} onChange={(e) => setCurrentPassword(e.target.value)} required />}
        </Field>
      ) : null}
      <Field label={t('New password')} error={errors.password}>
        {(p) => <input {...p} name="resetPassword" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
      </Field>
      <div className="field field-button">
        <button type="submit">{t('Set password')}</button>
      </div>
      <ErrorBox error={errors._} />
    </form>
  );
}

function CreateUserForm({ operator, base, tenantFilter, onCreated }: { operator: boolean; base: string; tenantFilter: string; onCreated: () => void }) {
  const toast = useToast();
  const [form, setForm] = useState({ username: '', password: '', role: 'TENANT_VIEWER' as Role, tenantId: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const tenantId = form.tenantId || tenantFilter;
    const body = operator
      ? { username: form.username, password: form.password, role: form.role, ...(form.role === 'OPERATOR' || !tenantId ? {} : { tenantId }) }
      : { username: form.username, password: form.password, role: form.role };
    try {
      const u = await post<User>(base, body);
      setErrors({});
      setForm({ ...form, username: '', password: '' });
      toast.notify(t('User {{user}} created', { user: u.username }));
      onCreated();
    } catch (err) {
      setErrors(errorsOf(err, ['username', 'password', 'role', 'tenantId']));
    }
  };
  const roles: Role[] = operator ? [...TENANT_ROLES, 'OPERATOR'] : TENANT_ROLES;
  return (
    <section aria-labelledby="new-user-h">
      <h2 id="new-user-h">{t('New user')}</h2>
      <form className="filters" onSubmit={(e) => void submit(e)} aria-label={t('Create a user')}>
        <Field label={t('Username')} error={errors.username}>
          {(p) => <input {...p} name="newUsername" autoComplete="off" value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} />}
        </Field>
        <Field label={t('Password')} error={errors.password}>
          {(p) => <input {...p} name="newPassword" type="password" autoComplete="new-password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} />}
        </Field>
        <Field label={t('Role')} error={errors.role}>
          {(p) => (
            <select {...p} name="newRole" value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })}>
              <CodeOptions codes={roles} />
            </select>
          )}
        </Field>
        {operator && form.role !== 'OPERATOR' ? (
          <Field label={t('Tenant')} error={errors.tenantId}>
            {(p) => <input {...p} name="newTenant" placeholder={tenantFilter} value={form.tenantId} onChange={(e) => setForm({ ...form, tenantId: e.target.value })} />}
          </Field>
        ) : null}
        <div className="field field-button">
          <button type="submit">{t('Create user')}</button>
        </div>
      </form>
      <ErrorBox error={errors._} />
    </section>
  );
}
