import { useState, type FormEvent } from 'react';
import { del, get, post } from '../api';
import { ErrorBox, Field, PageHeader, useToast } from '../components';
import { DataTable } from '../DataTable';
import { EmptyState } from '../EmptyState';
import { errorsOf } from '../form-errors';
import { fmtTime } from '../format';
import { useLoad } from '../hooks';
import { SEVERITIES, WEBHOOK_EVENT_TYPES, type CreatedWebhook, type Webhook, type WebhookTest } from '../model';

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
    toast.notify(r.ok ? `Test delivery to ${h.name}: ${r.status} in ${r.ms} ms` : `Test delivery to ${h.name} failed: ${r.error ?? `HTTP ${r.status}`}`, r.ok ? 'info' : 'error');
  };
  const remove = async (h: Webhook) => {
    if (!window.confirm(`Remove webhook ${h.name}? Alarms not delivered to it yet are dropped.`)) return;
    await del(`/webhooks/${h.id}`);
    await hooks.reload();
  };

  return (
    <>
      <PageHeader title="Webhooks" />
      <ErrorBox error={hooks.error} />
      <form className="filters" aria-label="Add a webhook" onSubmit={(e) => void add(e)}>
        <Field label="Name" error={errors.name}>
          {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="URL" error={errors.url}>
          {(p) => <input {...p} name="url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/baton" />}
        </Field>
        <Field label="Lowest severity" error={errors.minSeverity}>
          {(p) => (
            <select {...p} name="minSeverity" value={minSeverity} onChange={(e) => setMinSeverity(e.target.value)}>
              {SEVERITIES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
        <fieldset className="checks" aria-label="Alarm types, and AUDIT for the audit log (none checked: every alarm type)">
          {WEBHOOK_EVENT_TYPES.map((t) => (
            <label key={t} className="check">
              <input type="checkbox" checked={types.includes(t)} onChange={(e) => setTypes((ts) => (e.target.checked ? [...ts, t] : ts.filter((x) => x !== t)))} /> {t}
            </label>
          ))}
          {errors.alarmTypes ? <div className="field-error">{errors.alarmTypes}</div> : null}
        </fieldset>
        <div className="field field-button">
          <button type="submit" className="btn-primary">
            Add webhook
          </button>
        </div>
      </form>
      <ErrorBox error={errors._} />
      {secret ? (
        <div className="notice" role="status" data-webhook-secret>
          Signing secret of {secret.name} (shown once): <code>{secret.secret}</code>. Verify X-Baton-Signature: v1=HMAC-SHA256(secret, "&lt;X-Baton-Timestamp&gt;.&lt;body&gt;").
        </div>
      ) : null}
      <DataTable
        label="Webhooks"
        rows={hooks.data}
        rowKey={(h) => h.id}
        rowProps={(h) => ({ 'data-webhook': h.name })}
        empty={
          <EmptyState title="No webhook yet.">
            Alarms reach the console and the ActiveMQ topic only. Add one above to have them POSTed to your endpoint, signed.
          </EmptyState>
        }
        columns={[
          { header: 'Name', cell: (h) => h.name },
          { header: 'URL', className: 'mono small', cell: (h) => h.url },
          { header: 'Alarms', className: 'small', cell: (h) => `${h.alarmTypes ? h.alarmTypes.join(', ') : 'every type'} · ${h.minSeverity} and above` },
          { header: 'Pending / given up', cellProps: (h) => ({ title: h.lastError ?? undefined }), cell: (h) => `${h.pending} / ${h.failed}` },
          { header: 'Created', className: 'small', cell: (h) => fmtTime(h.createdAt) },
          {
            header: 'Actions',
            className: 'actions',
            cell: (h) => (
              <>
                <button type="button" className="btn-small" onClick={() => void test(h)}>
                  Send test
                </button>
                <button type="button" className="btn-small btn-ghost" onClick={() => void remove(h)}>
                  Remove
                </button>
              </>
            ),
          },
        ]}
      />
    </>
  );
}
