import { useRef, useState, type FormEvent } from 'react';
import { del, get, post } from '../../shared/api';
import { ErrorBox, Field, Time } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { errorsOf } from '../../shared/form-errors';
import { useLoad } from '../../shared/hooks';
import { t } from '../../shared/i18n/i18n';
import type { CreatedInboundWebhook, InboundWebhook } from '../../shared/model';
import { CopyButton, SecretBox } from '../../shared/SecretBox';

const SCHEMES = ['GITHUB', 'STRIPE'] as const;

/** What the third party's settings ask for, by scheme. */
function schemeHint(scheme: InboundWebhook['scheme']): string {
  return scheme === 'GITHUB'
    ? t('GitHub style: X-Hub-Signature-256 over the body, with X-GitHub-Delivery (required); set the content type to application/json. A redelivery starts nothing; the same signed body under another delivery id is refused as a replay.')
    : t('Stripe style: Stripe-Signature with t= and v1=, refused beyond 300 s; the body’s id makes retries start nothing.');
}

/**
 * Inbound webhooks (TENANT_ADMIN): URLs a third party POSTs to, signed; each verified delivery
 * becomes an event. The secret and the URL to give are shown once, with copy buttons.
 */
export function InboundWebhooksSection() {
  const hooks = useLoad(() => get<InboundWebhook[]>('/inbound-webhooks'), []);
  const [name, setName] = useState('');
  const [event, setEvent] = useState('');
  const [scheme, setScheme] = useState<InboundWebhook['scheme']>('GITHUB');
  const [secret, setSecret] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [shown, setShown] = useState<CreatedInboundWebhook | null>(null);
  const urlInput = useRef<HTMLInputElement>(null);
  const urlOf = (h: InboundWebhook) => `${window.location.origin}${h.path}`;

  const add = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const created = await post<CreatedInboundWebhook>('/inbound-webhooks', { name, event, scheme, secret: secret || undefined });
      setErrors({});
      setShown(created);
      setName('');
      setEvent('');
      setSecret('');
      await hooks.reload();
    } catch (err) {
      setErrors(errorsOf(err, ['name', 'event', 'scheme', 'secret']));
    }
  };
  const rotate = async (h: InboundWebhook) => {
    if (!window.confirm(t('Replace the secret of {{name}}? Deliveries signed with the old one are refused from now on.', { name: h.name }))) return;
    setShown(await post<CreatedInboundWebhook>(`/inbound-webhooks/${h.id}/secret`, {}));
  };
  const remove = async (h: InboundWebhook) => {
    if (!window.confirm(t('Remove inbound webhook {{name}}? Its URL refuses every delivery from now on.', { name: h.name }))) return;
    await del(`/inbound-webhooks/${h.id}`);
    if (shown?.id === h.id) setShown(null);
    await hooks.reload();
  };

  return (
    <section aria-labelledby="inbound-webhooks-h">
      <h2 id="inbound-webhooks-h">{t('Inbound webhooks')}</h2>
      <p className="muted">{t('A third party (GitHub, Stripe, …) POSTs to a URL of yours, signed with its secret; each delivery that verifies becomes an event.')}</p>
      <ErrorBox error={hooks.error} />
      <form className="filters" aria-label={t('Add an inbound webhook')} onSubmit={(e) => void add(e)}>
        <Field label={t('Name')} error={errors.name}>
          {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label={t('Event name')} error={errors.event}>
          {(p) => <input {...p} name="event" value={event} placeholder="github.push" onChange={(e) => setEvent(e.target.value)} />}
        </Field>
        <Field label={t('Signing scheme')} error={errors.scheme}>
          {(p) => (
            <select {...p} name="scheme" value={scheme} onChange={(e) => setScheme(e.target.value as InboundWebhook['scheme'])}>
              {SCHEMES.map((s) => (
                <option key={s} value={s}>
                  {s === 'GITHUB' ? t('GitHub style') : t('Stripe style')}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('Secret (optional)')} error={errors.secret} hint={t('Empty: Baton makes one')}>
          {(p) => <input {...p} name="secret" type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />}
        </Field>
        <div className="field field-button">
          <button type="submit" className="btn-primary">
            {t('Add inbound webhook')}
          </button>
        </div>
      </form>
      <ErrorBox error={errors._} />
      {shown ? (
        <SecretBox label={t('Signing secret of {{name}}', { name: shown.name })} secret={shown.secret}>
          <label className="secret-label">
            {t('Give the third party this URL:')}
            <span className="secret-row">
              <input ref={urlInput} className="mono" readOnly value={urlOf(shown)} onFocus={(e) => e.currentTarget.select()} spellCheck={false} data-inbound-url />
              <CopyButton text={urlOf(shown)} target={() => urlInput.current} />
            </span>
          </label>
          <p className="small">{schemeHint(shown.scheme)}</p>
        </SecretBox>
      ) : null}
      <DataTable
        label={t('Inbound webhooks')}
        rows={hooks.data}
        rowKey={(h) => h.id}
        rowProps={(h) => ({ 'data-inbound-webhook': h.name })}
        empty={<EmptyState title={t('No inbound webhook yet.')}>{t('Add one above to turn a third party’s signed POSTs into events.')}</EmptyState>}
        columns={[
          { header: t('Name'), cellProps: () => ({ translate: 'no' as const }), cell: (h) => h.name },
          { header: t('Event'), cellProps: () => ({ translate: 'no' as const }), cell: (h) => h.event },
          { header: t('Signing scheme'), cellProps: (h) => ({ title: schemeHint(h.scheme) }), cell: (h) => (h.scheme === 'GITHUB' ? t('GitHub style') : t('Stripe style')) },
          { header: t('URL'), className: 'mono small', cellProps: () => ({ translate: 'no' as const }), cell: (h) => urlOf(h) },
          { header: t('Created'), className: 'small', cell: (h) => <Time ms={h.createdAt} /> },
          {
            header: t('Actions'),
            className: 'actions',
            cell: (h) => (
              <>
                <button type="button" className="btn-small" onClick={() => void rotate(h)}>
                  {t('Rotate secret')}
                </button>
                <button type="button" className="btn-small btn-ghost" onClick={() => void remove(h)}>
                  {t('Remove')}
                </button>
              </>
            ),
          },
        ]}
      />
    </section>
  );
}
