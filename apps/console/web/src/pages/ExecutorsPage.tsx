import { get } from '../api';
import { ErrorBox, PageHeader } from '../components';
import { fmtAgo, fmtTime } from '../format';
import { useInterval, useLoad, useNow } from '../hooks';
import type { Executor } from '../model';

export function ExecutorsPage() {
  const executors = useLoad(() => get<Executor[]>('/executors'), []);
  useInterval(() => void executors.reload(), 2000);
  const now = useNow(1000);
  return (
    <>
      <PageHeader title="Executors" />
      <ErrorBox error={executors.error} />
      <div className="table-wrap">
        <table className="data" aria-label="Executors">
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">URL</th>
              <th scope="col">Status</th>
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
                  <meter min={0} max={Math.max(1, e.capacity)} value={e.inFlight} high={e.capacity * 0.8} aria-label={`Load of ${e.app}`} /> {e.inFlight} / {e.capacity}
                </td>
                <td title={fmtTime(e.heartbeatAt)}>{fmtAgo(e.heartbeatAt, now)}</td>
                <td className="small">{fmtTime(e.registeredAt)}</td>
              </tr>
            ))}
            {executors.data?.length === 0 ? (
              <tr>
                <td colSpan={6} className="muted">
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
