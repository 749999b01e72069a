import { createContext, useCallback, useContext, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useLive, type AlarmEvent } from './live';
import { Link } from './router';
import { fmtClock } from './format';

/** A labelled form field with its error beside it (aria-describedby), as the API named it. */
export function Field({
  label,
  error,
  hint,
  children,
  className,
}: {
  label: string;
  error?: string;
  hint?: ReactNode;
  className?: string;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const errId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field ${error ? 'field-invalid' : ''} ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy })}
      {hint ? (
        <div className="hint" id={hintId}>
          {hint}
        </div>
      ) : null}
      {error ? (
        <div className="field-error" id={errId} role="alert" data-field-error>
          {error}
        </div>
      ) : null}
    </div>
  );
}

export function StateBadge({ state }: { state: string }) {
  return (
    <span className={`badge state-${state}`} data-state={state}>
      {state}
    </span>
  );
}

/** A failed load, or a form's error that names none of its fields (see errorsOf). */
export function ErrorBox({ error }: { error: Error | string | null | undefined }) {
  if (!error) return null;
  return (
    <div className="error-box" role="alert">
      {typeof error === 'string' ? error : error.message}
    </div>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Baton`;
  }, [title]);
  return (
    <div className="page-header">
      <h1>{title}</h1>
      <div className="page-actions">{children}</div>
    </div>
  );
}

// ---- toasts ---------------------------------------------------------------------------------

interface Toast {
  key: number;
  kind: 'info' | 'error' | 'alarm';
  text: string;
  alarm?: AlarmEvent;
  link?: { to: string; label: string };
}

interface ToastApi {
  notify(text: string, kind?: 'info' | 'error', link?: { to: string; label: string }): void;
}

const ToastContext = createContext<ToastApi>({ notify: () => undefined });

export function useToast(): ToastApi {
  return useContext(ToastContext);
}

/**
 * Pop-ups: every alarm of the tenant arrives over socket.io and shows here, on every page,
 * until acknowledged or dismissed; plus short notices of the user's own actions.
 */
export function ToastProvider({ canAck, children }: { canAck: boolean; children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const seq = useRef(0);
  const live = useLive();
  const remove = useCallback((key: number) => setToasts((ts) => ts.filter((t) => t.key !== key)), []);
  const push = useCallback(
    (t: Omit<Toast, 'key'>, ttlMs: number | null) => {
      const key = ++seq.current;
      setToasts((ts) => [...ts.slice(-5), { ...t, key }]);
      if (ttlMs !== null) setTimeout(() => remove(key), ttlMs);
    },
    [remove],
  );
  // A repeat counted into an open alarm arrives again with the same id and a higher count: the
  // alarm's pop-up shows the count instead of a second pop-up.
  const shown = useRef(new Set<string>());
  useEffect(
    () =>
      live.onAlarm((alarm) => {
        if (shown.current.has(alarm.id)) {
          setToasts((ts) => {
            const open = ts.some((t) => t.alarm?.id === alarm.id);
            return open ? ts.map((t) => (t.alarm?.id === alarm.id && alarm.count > t.alarm.count ? { ...t, alarm } : t)) : ts;
          });
          return;
        }
        shown.current.add(alarm.id);
        push({ kind: 'alarm', text: alarm.message, alarm, link: alarm.runId ? { to: `/runs/${alarm.runId}`, label: `Run #${alarm.runId}` } : undefined }, alarm.severity === 'INFO' ? 10_000 : null);
      }),
    [live, push],
  );
  useEffect(() => live.onAlarmAcked((a) => setToasts((ts) => ts.filter((t) => t.alarm?.id !== a.id))), [live]);
  const api = useMemo<ToastApi>(() => ({ notify: (text, kind = 'info', link) => push({ kind, text, link }, kind === 'error' ? 10_000 : 5_000) }), [push]);
  const ack = async (t: Toast) => {
    const reply = await live.ackAlarm(t.alarm!.id);
    if (reply.ok) remove(t.key);
    else api.notify(`Could not acknowledge: ${reply.message ?? 'error'}`, 'error');
  };
  return (
    <ToastContext.Provider value={api}>
      {children}
      <section className="toasts" aria-label="Notifications" aria-live="polite">
        {toasts.map((t) => (
          <div
            key={t.key}
            className={`toast toast-${t.kind} ${t.alarm ? `sev-${t.alarm.severity}` : ''}`}
            role={t.kind === 'info' ? 'status' : 'alert'}
            data-alarm-type={t.alarm?.type}
            data-alarm-id={t.alarm?.id}
          >
            <div className="toast-body">
              {t.alarm ? (
                <div className="toast-title">
                  <strong>{t.alarm.type}</strong> · {t.alarm.severity}
                  {t.alarm.count > 1 ? ` ×${t.alarm.count}` : ''} · {fmtClock(t.alarm.raisedAt)}
                </div>
              ) : null}
              <div className="toast-text" title={t.text}>
                {t.text}
              </div>
              {t.link ? <Link to={t.link.to}>{t.link.label}</Link> : null}
            </div>
            <div className="toast-actions">
              {t.alarm && canAck ? (
                <button type="button" className="btn-small" onClick={() => void ack(t)}>
                  Acknowledge
                </button>
              ) : null}
              <button type="button" className="btn-small btn-ghost" aria-label="Dismiss notification" onClick={() => remove(t.key)}>
                ×
              </button>
            </div>
          </div>
        ))}
      </section>
    </ToastContext.Provider>
  );
}
