import { useState, type FormEvent } from 'react';
import { del, get, post } from '../../shared/api';
import { CodeOptions, ErrorBox, Field, PageHeader, Time, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { errorsOf } from '../../shared/form-errors';
import { fmtDuration } from '../../shared/format';
import { useLoad } from '../../shared/hooks';
import { SEVERITIES, WEBHOOK_EVENT_TYPES, type CreatedWebhook, type Webhook, type WebhookTest } from '../../shared/model';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';
import { InboundWebhooksSection } from './InboundWebhooksSection';

/**
 * Webhook channels (TENANT_ADMIN): alarms matching a channel's types and lowest severity are
 * POSTed to it by the engines, signed; a test delivery says what the endpoint answers.
 */
export function WebhooksPage() {
  const toast = useToast();
  const hooks = useLoad(() => get<Webhook[]>('/webhooks'), []);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const [minSeverity, setMinSeverity] = useState('WARNING');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);

  const add = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const created = await post<CreatedWebhook>('/webhooks', { name, url, alarmTypes: types.length ? types : null, minSeverity });
      setErrors({});
      setSecret({ name: created.name, secret: created.secret });
      setName('');
      setUrl('');
      await hooks.reload();
    } catch (err) {
      setErrors(errorsOf(err, ['name', 'url', 'minSeverity', 'alarmTypes']));
    }
  };
  const test = async (h: Webhook) => {
    const r = await post<WebhookTest>(`/webhooks/${h.id}/test`, {});
    toast.notify(
      r.ok ? t('Test delivery to {{name}}: {{status}} in {{duration}}', { name: h.name, status: r.status, duration: fmtDuration(r.ms) }) : t('Test delivery to {{name}} failed: {{reason}}', { name: h.name, reason: r.error ?? `HTTP ${r.status}` }),
      r.ok ? 'info' : 'error',
    );
  };
  const remove = async (h: Webhook) => {
    if (!window.confirm(t('Remove webhook {{name}}? Alarms not delivered to it yet are dropped.', { name: h.name }))) return;
    await del(`/webhooks/${h.id}`);
    await hooks.reload();
  };

  return (
    <>
      <PageHeader title={t('Webhooks')} />
      <ErrorBox error={hooks.error} />
      <form className="filters" aria-label={t('Add a webhook')} onSubmit={(e) => void add(e)}>
        <Field label={t('Name')} error={errors.name}>
          {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label={t('URL')} error={errors.url}>
          {(p) => <input {...p} name="url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/baton" />}
        </Field>
        <Field label={t('Lowest severity')} error={errors.minSeverity}>
          {(p) => (
            <select {...p} name="minSeverity" value={minSeverity} onChange={(e) => setMinSeverity(e.target.value)}>
              <CodeOptions codes={SEVERITIES} />
            </select>
          )}
        </Field>
        <fieldset className="checks" aria-label={t('Alarm types, and AUDIT for the audit log (none checked: every alarm type)')}>
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label key={type} className="check">
              <input type="checkbox" checked={types.includes(type)} onChange={(e) => setTypes((ts) => (e.target.checked ? [...ts, type] : ts.filter((x) => x !== type)))} /> {codeLabel(type)}
            </label>
          ))}
          {errors.alarmTypes ? <div className="field-error">{errors.alarmTypes}</div> : null}
        </fieldset>
        <div className="field field-button">
          <button type="submit" className="btn-primary">
            {t('Add webhook')}
          </button>
        </div>
      </form>
      <ErrorBox error={errors._} />
      {secret ? (
        <div className="notice" role="status" data-webhook-secret>
          {t('Signing secret of {{name}} (shown once):', { name: secret.name })} <code>{secret.secret}</code>. {t('Verify')} <code>X-Baton-Signature: v1=HMAC-SHA256(secret, "&lt;X-Baton-Timestamp&gt;.&lt;body&gt;")</code>.
        </div>
      ) : null}
      <DataTable
        label={t('Webhooks')}
        rows={hooks.data}
        rowKey={(h) => h.id}
        rowProps={(h) => ({ 'data-webhook': h.name })}
        empty={
          <EmptyState title={t('No webhook yet.')}>
            {t('Alarms reach the console and the ActiveMQ topic only. Add one above to have them POSTed to your endpoint, signed.')}
          </EmptyState>
        }
        columns={[
          { header: t('Name'), cellProps: () => ({ translate: 'no' as const }), cell: (h) => h.name },
          { header: t('URL'), className: 'mono small', cell: (h) => h.url },
          { header: t('Alarms'), className: 'small', cell: (h) => `${h.alarmTypes ? h.alarmTypes.map(codeLabel).join(', ') : t('every type')} · ${t('{{severity}} and above', { severity: codeLabel(h.minSeverity) })}` },
          { header: t('Pending / given up'), cellProps: (h) => ({ title: h.lastError ?? undefined }), cell: (h) => `${h.pending} / ${h.failed}` },
          { header: t('Created'), className: 'small', cell: (h) => <Time ms={h.createdAt} /> },
          {
            header: t('Actions'),
            className: 'actions',
            cell: (h) => (
              <>
                <button type="button" className="btn-small" onClick={() => void test(h)}>
                  {t('Send test')}
                </button>
                <button type="button" className="btn-small btn-ghost" onClick={() => void remove(h)}>
                  {t('Remove')}
                </button>
              </>
            ),
          },
        ]}
      />
      <InboundWebhooksSection />
    </>
  );
}
