import { useRef, useState } from 'react';
import { get } from '../api';
import { ErrorBox, PageHeader } from '../components';
import { DataTable } from '../DataTable';
import { EmptyState } from '../EmptyState';
import { fmtAgo, fmtTime } from '../format';
import { useInterval, useLoad, useNow } from '../hooks';
import { LoadTable } from '../LoadTable';
import type { Executor, ExecutorConnection, RotatedExecutorSecret } from '../model';
import { RotatedSecret, RotateSecretForm } from '../RotateSecretForm';
import { CopyButton } from '../SecretBox';

const SECRET_BADGES: Record<Executor['secret'], [string, string]> = {
  CURRENT: ['current', 'online'],
  PREVIOUS: ['previous: restart with the new secret', 'paused'],
  OUTDATED: ['needs the new secret', 'offline'],
  UNKNOWN: ['unknown', ''],
};

export function ExecutorsPage({ canRotate }: { canRotate: boolean }) {
  const executors = useLoad(() => get<Executor[]>('/executors'), []);
  useInterval(() => void executors.reload(), 2000);
  const now = useNow(1000);
  return (
    <>
      <PageHeader title="Executors" />
      <ConnectPanel canRotate={canRotate} onRotated={() => void executors.reload()} />
      <ErrorBox error={executors.error} />
      <DataTable
        label="Executors"
        rows={executors.data}
        rowKey={(e) => e.id}
        rowProps={(e) => ({ 'data-executor': e.app })}
        empty={
          <EmptyState title="No executor has sent a heartbeat yet.">
            Start one with the variables under <a href="#connect-h">Connect an executor</a> above; it shows here within seconds of its first heartbeat.
          </EmptyState>
        }
        columns={[
          { header: 'App', cell: (e) => e.app },
          { header: 'URL', className: 'mono small', cell: (e) => e.url },
          { header: 'Status', cell: (e) => <span className={`badge ${e.state === 'UP' ? 'online' : 'offline'}`}>{e.state === 'UP' ? 'online' : 'offline'}</span> },
          {
            header: 'Secret',
            cell: (e) => (
              <span className={`badge ${SECRET_BADGES[e.secret][1]}`} data-secret-status={e.secret}>
                {SECRET_BADGES[e.secret][0]}
              </span>
            ),
          },
          {
            header: 'Handlers',
            className: 'small',
            cellProps: () => ({ 'data-executor-handlers': true }),
            // A handler that declares its params' schema is marked: tasks of it are checked on save.
            cell: (e) =>
              e.handlers.length
                ? e.handlers.map((h, i) => (
                    <span key={h}>
                      {i > 0 ? ', ' : ''}
                      {h}
                      {e.handlerSchemas[h] !== undefined ? (
                        <abbr title="declares a JSON schema of its params" data-has-schema={h}>
                          {' '}
                          (schema)
                        </abbr>
                      ) : null}
                    </span>
                  ))
                : '—',
          },
          {
            header: 'Load',
            cell: (e) => (
              <>
                <meter min={0} max={Math.max(1, e.capacity)} value={e.inFlight} high={e.capacity * 0.8} aria-label={`Load of ${e.app}`} /> {e.inFlight} / {e.capacity}
              </>
            ),
          },
          { header: 'Last heartbeat', cellProps: (e) => ({ title: fmtTime(e.heartbeatAt) }), cell: (e) => fmtAgo(e.heartbeatAt, now) },
          { header: 'Registered', className: 'small', cell: (e) => fmtTime(e.registeredAt) },
        ]}
      />
      <section aria-labelledby="load-h">
        <h2 id="load-h">Load</h2>
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
    `BATON_EXECUTOR_SECRET=${rotated?.executorSecret ?? '<the executor secret>'}`,
    `BATON_ENGINE_URLS=${engineUrls || '<an engine URL>'}`,
    `BATON_EXECUTOR_APP=${c.apps[0] ?? '<your app name>'}`,
  ].join('\n');
  return (
    <section className="card connect-panel" aria-labelledby="connect-h">
      <h2 id="connect-h">Connect an executor</h2>
      <dl>
        <dt>Tenant id</dt>
        <dd className="mono" data-connect="tenant">
          {c.tenantId}
        </dd>
        <dt>Engine URLs</dt>
        <dd className="mono" data-connect="engines">
          {engineUrls || <span className="muted">no engine of group “{c.engineGroup}” is up</span>}
        </dd>
        <dt>Apps</dt>
        <dd className="mono">{c.apps.length ? c.apps.join(', ') : <span className="muted">none yet: tasks name the app that runs them</span>}</dd>
        <dt>Executor secret</dt>
        <dd data-connect="secret">
          version {c.secretVersion}. Shown once, when the tenant was created (Operator page) or at its last rotation
          {canRotate ? '; lost it? Rotate it below.' : '; a tenant admin can rotate it.'}
          {c.previousSecretExpiresAt !== null ? (
            <>
              {' '}
              <strong data-previous-expires>The previous secret still works until {fmtTime(c.previousSecretExpiresAt)}.</strong>
            </>
          ) : null}
        </dd>
      </dl>
      <div className="env-block">
        <textarea ref={env} className="mono small" readOnly value={envText} aria-label="Environment of an executor" rows={4} />
        <CopyButton text={envText} target={() => env.current} label="Copy variables" />
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
    </section>
  );
}
