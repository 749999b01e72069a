/** How many pop-ups show at once: more would stack up over the header and the page's actions. */
export const MAX_TOASTS = 5;

/** What the stacking rule needs of a pop-up: a notice of the user's own action, or an alarm of some severity. */
export interface Stackable {
  kind: 'info' | 'error' | 'alarm';
  alarm?: { severity: 'INFO' | 'WARNING' | 'CRITICAL' };
}

/** The order pop-ups give way in when the stack is full: notices first, then alarms by rising severity. */
function rank(toast: Stackable): number {
  if (toast.kind !== 'alarm') return 0;
  return toast.alarm?.severity === 'CRITICAL' ? 3 : toast.alarm?.severity === 'WARNING' ? 2 : 1;
}

/**
 * The stack after `incoming` arrives: at most MAX_TOASTS, the one giving way the oldest of the
 * lowest rank (a notice before an INFO alarm, before a WARNING, before a CRITICAL one, so an
 * unacknowledged CRITICAL alarm is the last to go), and how many alarms gave way — the page says
 * so and links to the alarm list, where every alarm still is. The newest always shows.
 */
export function stackToasts<T extends Stackable>(shown: readonly T[], incoming: T): { shown: T[]; alarmsOut: number } {
  const next = [...shown, incoming];
  let alarmsOut = 0;
  while (next.length > MAX_TOASTS) {
    let out = 0;
    for (let i = 1; i < next.length - 1; i++) if (rank(next[i]) < rank(next[out])) out = i;
    if (next[out].kind === 'alarm') alarmsOut++;
    next.splice(out, 1);
  }
  return { shown: next, alarmsOut };
}
