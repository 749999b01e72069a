import { useRef, useState } from 'react';
import { del, get } from '../../shared/api';
import { ErrorBox, PageHeader, Time, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { fmtSince, fmtTime, fmtUtc } from '../../shared/format';
import { useInterval, useLoad, useNow } from '../../shared/hooks';
import { executorLoad } from '@baton/domain/load/tenant-load';
import { LoadTable } from './LoadTable';
import type { Executor, ExecutorConnection, RotatedExecutorSecret } from '../../shared/model';
import { RotatedSecret, RotateSecretForm } from './RotateSecretForm';
import { XxlJobPanel } from './XxlJobPanel';
import { CopyButton } from '../../shared/SecretBox';
import { t } from '../../shared/i18n/i18n';

const SECRET_BADGES: Record<Executor['secret'], [() => string, string]> = {
  CURRENT: [() => t('current'), 'online'],
  PREVIOUS: [() => t('previous: restart with the new secret'), 'paused'],
  OUTDATED: [() => t('needs the new secret'), 'offline'],
  UNKNOWN: [() => t('unknown'), ''],
};

export function ExecutorsPage({ canRotate }: { canRotate: boolean }) {
  const executors = useLoad(() => get<Executor[]>('/executors'), []);
  useInterval(() => void executors.reload(), 2000);
  const now = useNow(1000);
  const toast = useToast();
  // A DOWN executor's row stays (a stopped one, or one gone silent) until removed: its runs stay.
  const remove = async (e: Executor) => {
    try {
      await del(`/executors/${e.id}`);
      toast.notify(t('Executor {{app}} at {{url}} removed', { app: e.app, url: e.url }));
      await executors.reload();
    } catch (err) {
      toast.notify((err as Error).message, 'error');
    }
  };
  return (
    <>
      <PageHeader title={t('Executors')} />
      <ConnectPanel canRotate={canRotate} onRotated={() => void executors.reload()} />
      <ErrorBox error={executors.error} />
      <DataTable
        label={t('Executors')}
        rows={executors.data}
        rowKey={(e) => e.id}
        rowProps={(e) => ({ 'data-executor': e.app })}
        empty={
          <EmptyState title={t('No executor has sent a heartbeat yet.')}>
            {t('Start one with the variables under')} <a href="#connect-h">{t('Connect an executor')}</a>
            {t(' above; it shows here within seconds of its first heartbeat.')}
          </EmptyState>
        }
        columns={[
          { header: t('App'), cellProps: () => ({ translate: 'no' as const }), cell: (e) => e.app },
          { header: t('URL'), className: 'mono small', cell: (e) => e.url },
          { header: t('Status'), cell: (e) => <span className={`badge ${e.state === 'UP' ? 'online' : 'offline'}`}>{e.state === 'UP' ? t('online') : e.stoppedAt !== null ? t('stopped') : t('offline')}</span> },
          {
            header: t('Secret'),
            // An XXL-JOB executor signs nothing: the tenant's XXL-JOB token is its credential.
            cell: (e) =>
              e.wire === 'xxl-job' ? (
                <span className="badge" data-executor-wire="xxl-job">
                  {t('XXL-JOB token')}
                </span>
              ) : (
                <span className={`badge ${SECRET_BADGES[e.secret][1]}`} data-secret-status={e.secret}>
                  {SECRET_BADGES[e.secret][0]()}
                </span>
              ),
          },
          {
            header: t('Handlers'),
            className: 'small',
            cellProps: () => ({ 'data-executor-handlers': true, translate: 'no' as const }),
            // A handler that declares its params' schema is marked: tasks of it are checked on save.
            cell: (e) =>
              e.handlers.length
                ? e.handlers.map((h, i) => (
                    <span key={h}>
                      {i > 0 ? ', ' : ''}
                      {h}
                      {e.handlerSchemas[h] !== undefined ? (
                        <abbr title={t('declares a JSON schema of its params')} data-has-schema={h}>
                          {' '}
                          ({t('schema')})
                        </abbr>
                      ) : null}
                    </span>
                  ))
                : '—',
          },
          {
            header: t('Load'),
            cell: (e) => {
              // What it reported in flight counts the runs sent ahead to it, which wait there for their instant: not its load.
              const load = executorLoad(e.inFlight, e.sentAhead);
              return (
                <>
                  <meter min={0} max={Math.max(1, e.capacity)} value={load} high={e.capacity * 0.8} aria-label={t('Load of {{app}}', { app: e.app })} />{' '}
                  <span data-executor-load={e.id}>
                    {load} / {e.capacity}
                  </span>
                  {e.sentAhead > 0 ? (
                    <>
                      {' '}
                      <span className="muted small" data-executor-sent-ahead={e.id} title={t('DISPATCHED and ACCEPTED sent ahead of their instant, waiting for it at their executor: a place there, no worker')}>
                        {t('+{{count}} sent ahead', { count: e.sentAhead })}
                      </span>
                    </>
                  ) : null}
                </>
              );
            },
          },
          { header: t('Last heartbeat'), cellProps: (e) => ({ title: `${fmtTime(e.heartbeatAt)} · ${e.heartbeatAt ? fmtUtc(e.heartbeatAt) : ''}` }), cell: (e) => fmtSince(e.heartbeatAt, now) },
          { header: t('Registered'), className: 'small', cell: (e) => <Time ms={e.registeredAt} /> },
          canRotate && {
            header: t('Actions'),
            cell: (e) =>
              e.state === 'DOWN' ? (
                <button type="button" className="btn-small btn-ghost" onClick={() => void remove(e)} aria-label={t('Remove executor {{app}} at {{url}}', { app: e.app, url: e.url })} data-remove-executor={e.id}>
                  {t('Remove')}
                </button>
              ) : null,
          },
        ]}
      />
      <section aria-labelledby="load-h">
        <h2 id="load-h">{t('Load')}</h2>
        <LoadTable operator={false} />
      </section>
    </>
  );
}

/**
 * "Connect an executor": the values of BATON_TENANT, BATON_ENGINE_URLS and BATON_EXECUTOR_APP,
 * where the secret comes from, and (tenant admin) its rotation with an overlap window.
 */
function ConnectPanel({ canRotate, onRotated }: { canRotate: boolean; onRotated: () => void }) {
  const connection = useLoad(() => get<ExecutorConnection>('/executors/connection'), []);
  const [rotated, setRotated] = useState<RotatedExecutorSecret | null>(null);
  const env = useRef<HTMLTextAreaElement>(null);
  const c = connection.data;
  if (!c) return <ErrorBox error={connection.error} />;
  const engineUrls = c.engineUrls.join(',');
  const envText = [
    `BATON_TENANT=${c.tenantId}`,
    `BATON_EXECUTOR_SECRET=${rotated?.executorSecret ?? `<${t('the executor secret')}>`}`,
    `BATON_ENGINE_URLS=${engineUrls || `<${t('an engine URL')}>`}`,
    `BATON_EXECUTOR_APP=${c.apps[0] ?? `<${t('your app name')}>`}`,
  ].join('\n');
  return (
    <section className="card connect-panel" aria-labelledby="connect-h">
      <h2 id="connect-h">{t('Connect an executor')}</h2>
      <dl>
        <dt>{t('Tenant id')}</dt>
        <dd className="mono" data-connect="tenant">
          {c.tenantId}
        </dd>
        <dt>{t('Engine URLs')}</dt>
        <dd className="mono" data-connect="engines">
          {engineUrls || <span className="muted">{t('no engine of group “{{group}}” is up', { group: c.engineGroup })}</span>}
        </dd>
        <dt>{t('Apps')}</dt>
        <dd className="mono">{c.apps.length ? c.apps.join(', ') : <span className="muted">{t('none yet: tasks name the app that runs them')}</span>}</dd>
        <dt>{t('Executor secret')}</dt>
        <dd data-connect="secret">
          {t('version {{version}}. Shown once, when the tenant was created (Operator page) or at its last rotation', { version: c.secretVersion })}
          {canRotate ? t('; lost it? Rotate it below.') : t('; a tenant admin can rotate it.')}
          {c.previousSecretExpiresAt !== null ? (
            <>
              {' '}
              <strong data-previous-expires>{t('The previous secret still works until {{time}}.', { time: fmtTime(c.previousSecretExpiresAt) })}</strong>
            </>
          ) : null}
        </dd>
      </dl>
      <div className="env-block">
        <textarea ref={env} className="mono small" readOnly value={envText} aria-label={t('Environment of an executor')} rows={4} />
        <CopyButton text={envText} target={() => env.current} label={t('Copy variables')} />
      </div>
      {rotated ? <RotatedSecret rotated={rotated} /> : null}
      {canRotate ? (
        <RotateSecretForm
          onRotated={(r) => {
            setRotated(r);
            void connection.reload();
            onRotated();
          }}
        />
      ) : null}
      {canRotate ? <XxlJobPanel engineUrls={c.engineUrls} /> : null}
    </section>
  );
}
