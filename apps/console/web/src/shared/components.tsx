import { createContext, useCallback, useContext, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useLive, type AlarmEvent } from './live';
import { Link } from './router';
import { fmtClock, fmtTime, fmtUtc } from './format';
import { t } from './i18n/i18n';
import { codeLabel } from './labels';
import { stackToasts } from './toast-stack';

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

/** The <option>s of a list of domain codes (states, policies, roles…), valued by the code, labelled in the viewer's language. */
export function CodeOptions({ codes }: { codes: readonly string[] }) {
  return (
    <>
      {codes.map((code) => (
        <option key={code} value={code}>
          {codeLabel(code)}
        </option>
      ))}
    </>
  );
}

export function StateBadge({ state }: { state: string }) {
  return (
    <span className={`badge state-${state}`} data-state={state}>
      {codeLabel(state)}
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

/**
 * An instant in the viewer's display time zone (or `timeZone`), with the UTC instant to the
 * millisecond on hover and in `dateTime`.
 */
export function Time({ ms, timeZone, withMs }: { ms: number | null | undefined; timeZone?: string; withMs?: boolean }) {
  if (ms === null || ms === undefined) return <>—</>;
  return (
    <time dateTime={new Date(ms).toISOString()} title={fmtUtc(ms)}>
      {fmtTime(ms, timeZone, withMs)}
    </time>
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
  // One state for the stack and what gave way in it, so an update counts what it dropped exactly once.
  const [{ toasts, alarmsOut }, setStack] = useState<{ toasts: Toast[]; alarmsOut: number }>({ toasts: [], alarmsOut: 0 });
  const setToasts = useCallback((update: (ts: Toast[]) => Toast[]) => setStack((st) => ({ ...st, toasts: update(st.toasts) })), []);
  /** Alarms that gave way in a full stack since the user last looked (they are all on the alarm list). */
  const clearAlarmsOut = useCallback(() => setStack((st) => ({ ...st, alarmsOut: 0 })), []);
  const seq = useRef(0);
  const live = useLive();
  const remove = useCallback((key: number) => setToasts((ts) => ts.filter((x) => x.key !== key)), [setToasts]);
  const push = useCallback(
    (t: Omit<Toast, 'key'>, ttlMs: number | null) => {
      const key = ++seq.current;
      setStack((st) => {
        const next = stackToasts(st.toasts, { ...t, key });
        return { toasts: next.shown, alarmsOut: st.alarmsOut + next.alarmsOut };
      });
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
            const open = ts.some((x) => x.alarm?.id === alarm.id);
            return open ? ts.map((x) => (x.alarm?.id === alarm.id && alarm.count > x.alarm.count ? { ...x, alarm } : x)) : ts;
          });
          return;
        }
        shown.current.add(alarm.id);
        push({ kind: 'alarm', text: alarm.message, alarm, link: alarm.runId ? { to: `/runs/${alarm.runId}`, label: t('Run #{{id}}', { id: alarm.runId }) } : undefined }, alarm.severity === 'INFO' ? 10_000 : null);
      }),
    [live, push, setToasts],
  );
  useEffect(() => live.onAlarmAcked((a) => setToasts((ts) => ts.filter((x) => x.alarm?.id !== a.id))), [live, setToasts]);
  const api = useMemo<ToastApi>(() => ({ notify: (text, kind = 'info', link) => push({ kind, text, link }, kind === 'error' ? 10_000 : 5_000) }), [push]);
  const ack = async (toast: Toast) => {
    const reply = await live.ackAlarm(toast.alarm!.id);
    if (reply.ok) remove(toast.key);
    else api.notify(t('Could not acknowledge: {{reason}}', { reason: reply.message ?? 'error' }), 'error');
  };
  return (
    <ToastContext.Provider value={api}>
      {children}
      <section className="toasts" aria-label={t('Notifications')} aria-live="polite">
        {alarmsOut > 0 ? (
          <div className="toast toast-more" role="status" data-alarms-out={alarmsOut}>
            <div className="toast-body">
              <Link to="/alarms" onClick={clearAlarmsOut}>
                {t('{{count}} more alarms not shown here: open the alarm list', { count: alarmsOut })}
              </Link>
            </div>
            <div className="toast-actions">
              <button type="button" className="btn-small btn-ghost" aria-label={t('Dismiss notification')} onClick={clearAlarmsOut}>
                ×
              </button>
            </div>
          </div>
        ) : null}
        {toasts.map((toast) => (
          <div
            key={toast.key}
            className={`toast toast-${toast.kind} ${toast.alarm ? `sev-${toast.alarm.severity}` : ''}`}
            role={toast.kind === 'info' ? 'status' : 'alert'}
            data-alarm-type={toast.alarm?.type}
            data-alarm-id={toast.alarm?.id}
          >
            <div className="toast-body">
              {toast.alarm ? (
                <div className="toast-title">
                  <strong>{codeLabel(toast.alarm.type)}</strong> · {codeLabel(toast.alarm.severity)}
                  {toast.alarm.count > 1 ? ` ×${toast.alarm.count}` : ''} · {fmtClock(toast.alarm.raisedAt)}
                </div>
              ) : null}
              <div className="toast-text" title={toast.text} translate={toast.alarm ? 'no' : undefined}>
                {toast.text}
              </div>
              {toast.link ? <Link to={toast.link.to}>{toast.link.label}</Link> : null}
            </div>
            <div className="toast-actions">
              {toast.alarm && canAck ? (
                <button type="button" className="btn-small" onClick={() => void ack(toast)}>
                  {t('Acknowledge')}
                </button>
              ) : null}
              <button type="button" className="btn-small btn-ghost" aria-label={t('Dismiss notification')} onClick={() => remove(toast.key)}>
                ×
              </button>
            </div>
          </div>
        ))}
      </section>
    </ToastContext.Provider>
  );
}
