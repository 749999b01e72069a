import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { io, type Socket } from 'socket.io-client';
import { get } from './api';
import { t } from './i18n/i18n';
import type { Run, RunLog } from './model';

/** An `alarm` event of the console's socket.io gateway (libs/messaging AlarmMessage). */
export interface AlarmEvent {
  id: string;
  tenantId: string;
  type: string;
  severity: 'INFO' | 'WARNING' | 'CRITICAL';
  taskId: number | null;
  runId: number | null;
  executorId: number | null;
  message: string;
  count: number;
  raisedAt: number;
}

export interface AlarmAckedEvent {
  id: string;
  alarmId: number;
  ackedAt: number | null;
  ackedBy: string | null;
}

type Listener<T> = (payload: T) => void;

interface LiveContextValue {
  connected: boolean;
  onRun(listener: Listener<Run>): () => void;
  onAlarm(listener: Listener<AlarmEvent>): () => void;
  onAlarmAcked(listener: Listener<AlarmAckedEvent>): () => void;
  /** Acknowledge over the socket by the alarm's stable id. */
  ackAlarm(id: string): Promise<{ ok: boolean; message?: string; alarm?: AlarmAckedEvent }>;
  /**
   * The live log tail of one run: `listener` gets the lines written after the newest one the
   * page has (`afterId()`, asked again on every (re)connection). Returns the unwatch.
   */
  watchRunLogs(runId: number, afterId: () => number, listener: Listener<RunLog[]>): () => void;
}

const LiveContext = createContext<LiveContextValue | null>(null);

/**
 * One socket.io connection per logged-in tab (same origin, `/socket.io`, authenticated at the
 * handshake by the session cookie the browser sends). It carries `alarm`, `alarm:acked` and `run` events of the
 * user's tenant only, and `run:logs` of the runs a page watches.
 */
export function LiveProvider({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const [connected, setConnected] = useState(false);
  const socketRef = useRef<Socket | null>(null);
  const listeners = useRef({ run: new Set<Listener<Run>>(), alarm: new Set<Listener<AlarmEvent>>(), acked: new Set<Listener<AlarmAckedEvent>>() });
  const logWatches = useRef(new Map<number, { afterId: () => number; listener: Listener<RunLog[]> }>());

  useEffect(() => {
    if (!enabled) return;
    const socket = io({ path: '/socket.io', transports: ['websocket'] });
    socketRef.current = socket;
    // socket.io gives up after the console's middleware refuses a handshake: the page asks again on
    // a back-off (1, 2, 4, then every 5 s). A handshake the console could not check (503, `retry`:
    // its database was briefly away) heals, and so does a refusal by a console that, mid-failover,
    // could not find the session yet (an HA run lost its live pop-ups for good so); a session that
    // really ended is ended by the page's next API call (401: logged out, this provider off), which
    // stops the retries.
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let refused = 0;
    socket.on('connect', () => {
      refused = 0;
      setConnected(true);
      for (const [runId, w] of logWatches.current) socket.emit('run:logs:watch', { runId, afterId: w.afterId() });
    });
    socket.on('run:logs', (e: { runId: number; lines: RunLog[] }) => logWatches.current.get(e.runId)?.listener(e.lines));
    socket.on('disconnect', (reason) => {
      setConnected(false);
      if (reason !== 'io server disconnect') return; // socket.io reconnects from anything else by itself
      // The console dropped the socket: its session recheck found the session ended (logged out in
      // another tab, the user disabled), or it is shutting down. socket.io does not reconnect from
      // that, and the tab kept showing what it had, stale, with no API call to find out: ask now —
      // a 401 logs the tab out (api.ts; this provider's cleanup then clears the timer), anything
      // else connects again on the back-off.
      void get('/auth/me')
        .catch(() => undefined)
        .finally(() => (retryTimer = setTimeout(() => socket.connect(), Math.min(5_000, 1_000 * 2 ** refused++))));
    });
    socket.on('connect_error', (err: Error & { data?: { statusCode?: number; retry?: boolean } }) => {
      setConnected(false);
      if (socket.active) return; // a transport failure: socket.io reconnects by itself
      const waitMs = Math.min(5_000, 1_000 * 2 ** refused++);
      console.warn(`live updates: connection refused (${err.data?.statusCode ?? '-'}: ${err.message}); asking again in ${waitMs} ms`);
      retryTimer = setTimeout(() => socket.connect(), waitMs);
    });
    socket.on('run', (run: Run) => listeners.current.run.forEach((l) => l(run)));
    socket.on('alarm', (a: AlarmEvent) => listeners.current.alarm.forEach((l) => l(a)));
    socket.on('alarm:acked', (a: AlarmAckedEvent) => listeners.current.acked.forEach((l) => l(a)));
    return () => {
      clearTimeout(retryTimer);
      socket.disconnect();
      socketRef.current = null;
      setConnected(false);
    };
  }, [enabled]);

  const stable = useMemo(() => {
    const subscribe =
      <T,>(set: Set<Listener<T>>) =>
      (listener: Listener<T>) => {
        set.add(listener);
        return () => {
          set.delete(listener);
        };
      };
    const l = listeners.current;
    const ackAlarm = (id: string) =>
      new Promise<{ ok: boolean; message?: string; alarm?: AlarmAckedEvent }>((resolve) => {
        const socket = socketRef.current;
        if (!socket?.connected) return resolve({ ok: false, message: t('not connected') });
        socket.timeout(5000).emit('alarm:ack', { id }, (err: Error | null, reply: { ok: boolean; message?: string; alarm?: AlarmAckedEvent }) => {
          if (err) return resolve({ ok: false, message: t('no answer') });
          if (reply.ok && reply.alarm) l.acked.forEach((fn) => fn(reply.alarm!));
          resolve(reply);
        });
      });
    const watchRunLogs = (runId: number, afterId: () => number, listener: Listener<RunLog[]>) => {
      logWatches.current.set(runId, { afterId, listener });
      const socket = socketRef.current;
      if (socket?.connected) socket.emit('run:logs:watch', { runId, afterId: afterId() });
      return () => {
        logWatches.current.delete(runId);
        socketRef.current?.emit('run:logs:unwatch', { runId });
      };
    };
    return { onRun: subscribe(l.run), onAlarm: subscribe(l.alarm), onAlarmAcked: subscribe(l.acked), ackAlarm, watchRunLogs };
  }, []);
  const value = useMemo<LiveContextValue>(() => ({ ...stable, connected }), [stable, connected]);
  return <LiveContext.Provider value={value}>{children}</LiveContext.Provider>;
}

export function useLive(): LiveContextValue {
  const v = useContext(LiveContext);
  if (!v) throw new Error('useLive outside LiveProvider');
  return v;
}

/** Calls `listener` on each `run` event while mounted. */
export function useRunEvents(listener: Listener<Run>): void {
  const live = useLive();
  const ref = useRef(listener);
  useEffect(() => {
    ref.current = listener;
  });
  const { onRun } = live;
  useEffect(() => onRun((r) => ref.current(r)), [onRun]);
}
