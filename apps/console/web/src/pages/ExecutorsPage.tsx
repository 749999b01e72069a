import { useRef, useState } from 'react';
import { get } from '../api';
import { ErrorBox, PageHeader } from '../components';
import { fmtAgo, fmtTime } from '../format';
import { useInterval, useLoad, useNow } from '../hooks';
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
      <div className="table-wrap">
        <table className="data" aria-label="Executors">
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">URL</th>
              <th scope="col">Status</th>
              <th scope="col">Secret</th>
              <th scope="col">Handlers</th>
              <th scope="col">Load</th>
              <th scope="col">Last heartbeat</th>
              <th scope="col">Registered</th>
            </tr>
          </thead>
          <tbody>
            {(executors.data ?? []).map((e) => (
              <tr key={e.id} data-executor={e.app}>
                <td>{e.app}</td>
                <td className="mono small">{e.url}</td>
                <td>
                  <span className={`badge ${e.state === 'UP' ? 'online' : 'offline'}`}>{e.state === 'UP' ? 'online' : 'offline'}</span>
                </td>
                <td>
                  <span className={`badge ${SECRET_BADGES[e.secret][1]}`} data-secret-status={e.secret}>
                    {SECRET_BADGES[e.secret][0]}
                  </span>
                </td>
                <td className="small" data-executor-handlers>
                  {e.handlers.length ? e.handlers.join(', ') : '—'}
                </td>
                <td>
                  <meter min={0} max={Math.max(1, e.capacity)} value={e.inFlight} high={e.capacity * 0.8} aria-label={`Load of ${e.app}`} /> {e.inFlight} / {e.capacity}
                </td>
                <td title={fmtTime(e.heartbeatAt)}>{fmtAgo(e.heartbeatAt, now)}</td>
                <td className="small">{fmtTime(e.registeredAt)}</td>
              </tr>
            ))}
            {executors.data?.length === 0 ? (
              <tr>
                <td colSpan={8} className="muted">
                  No executor has sent a heartbeat yet.
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
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
