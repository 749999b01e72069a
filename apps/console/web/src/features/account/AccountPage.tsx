import { useState, type FormEvent } from 'react';
import { post, type Session } from '../../shared/api';
import { ErrorBox, Field, PageHeader, useToast } from '../../shared/components';
import { errorsOf } from '../../shared/form-errors';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';
import { PreferencesForm } from './PreferencesForm';

/** The logged-in user's own account: change the password (the user's other sessions end). */
export function AccountPage({ session }: { session: Session }) {
  const toast = useToast();
  const [form, setForm] = useState({ currentPassword: '', newPassword: '', repeat: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (form.newPassword !== form.repeat) {
      setErrors({ repeat: t('does not match the new password') });
      return;
    }
    try {
      await post('/auth/password', { currentPassword: form.currentPassword, newPassword: form.newPassword });
      setErrors({});
      setForm({ currentPassword: '', newPassword: '', repeat: '' });
      toast.notify(t('Password changed; your other sessions were logged out'));
    } catch (err) {
      setErrors(errorsOf(err, ['currentPassword', 'newPassword']));
    }
  };
  return (
    <>
      <PageHeader title={t('My account')} />
      <p>
        <span translate="no">{session.user.username}</span> · {codeLabel(session.user.role)}
        {session.user.tenantId ? (
          <>
            {' '}
            {t('of tenant')} <span translate="no">{session.user.tenantId}</span>
          </>
        ) : null}
      </p>
      <PreferencesForm />
      <section aria-labelledby="password-h">
        <h2 id="password-h">{t('Change my password')}</h2>
        <form className="card" style={{ maxWidth: '30rem' }} onSubmit={(e) => void submit(e)} aria-label={t('Change my password')}>
          <Field label={t('Current password')} error={errors.currentPassword}>
            {(p) => (
              <input {...p} name="currentPassword" type="password" autoComplete="current-password" value={form.currentPassword} onChange={(e) => setForm({ ...form, currentPassword: e.target.value })} required />
            )}
          </Field>
          <Field label={t('New password')} error={errors.newPassword} hint={t('At least 8 characters. Your other sessions are logged out.')}>
            {(p) => <input {...p} name="newPassword" type="password" autoComplete="new-password" value={form.newPassword} onChange={(e) => setForm({ ...form, newPassword: e.target.value })} required />}
          </Field>
          <Field label={t('Repeat the new password')} error={errors.repeat}>
            {(p) => <input {...p} name="repeatPassword" type="password" autoComplete="new-password" value={form.repeat} onChange={(e) => setForm({ ...form, repeat: e.target.value })} required />}
          </Field>
          <ErrorBox error={errors._} />
          <button type="submit" className="btn-primary">
            {t('Change password')}
          </button>
        </form>
      </section>
    </>
  );
}
