/** How a STOMP connection of the alarm bus heart-beats: the CONNECT header and stompit's margins. */
export interface StompHeartBeat {
  /** The CONNECT `heart-beat` header: `<we promise to send every>,<we want to receive every>`. */
  header: string;
  /** stompit: send every (negotiated interval − this). */
  heartbeatOutputMargin: number;
  /** stompit: drop the connection when nothing was read during (negotiated interval + this). */
  heartbeatDelayMargin: number;
}

/**
 * Heart-beats that a loaded machine does not mistake for a dead connection. `beatMs` (B) is how
 * often each side sends one.
 *
 * What ActiveMQ 5.17 does with `heart-beat: cx,cy` (measured against scripts/activemq.sh's broker):
 * it answers the same header back; it sends a keepalive every cy *unless it wrote another frame
 * in that period* — after a MESSAGE or a RECEIPT the next keepalive comes up to 2·cy later; and it
 * closes the connection when a period of 1.5·cx (its hbGracePeriodMultiplier) passes without a byte
 * from us. stompit reads the echoed header as the broker's, takes max(cx, cy) as both intervals,
 * sends every max − heartbeatOutputMargin, and drops the connection when nothing was read during
 * max + heartbeatDelayMargin (default 100 ms). With `10000,10000` and that default it checked 10.1 s
 * windows against keepalives up to 20 s apart: any alarm or receipt could drop a healthy
 * connection, and every connection that took part in one alarm's fan-out (the relay's receipt,
 * each console's MESSAGE) had its next keepalive pushed back at the same moment — they dropped
 * together, the more often the more the machine was loaded (a late timer on either side does the
 * rest: after a stall, Node runs the overdue check before it reads what arrived meanwhile).
 *
 * So: we ask for keepalives every B (cy = B: gaps ≤ 2B) and promise 4B (cx = 4B: ActiveMQ waits
 * 6B for a byte from us) but send every B (output margin 3B); we wait 7B for a byte from the
 * broker (delay margin 3B). Either side may then stall 5B without a drop — the broker's 6B less
 * our B between beats, our 7B less its 2B gap — 25 s with the default B of 5 s, longer than the
 * event-loop stalls seen at a load of 24 on 2 cores. A connection that really died is noticed
 * within 7B–14B by us (35–70 s), sooner when the socket closes; a console re-reads from the
 * database what was published since it last heard from the broker, so a late notice costs
 * latency, not pop-ups.
 */
export function stompHeartBeat(beatMs: number): StompHeartBeat {
  if (beatMs <= 0) return { header: '0,0', heartbeatOutputMargin: 0, heartbeatDelayMargin: 0 };
  return { header: `${4 * beatMs},${beatMs}`, heartbeatOutputMargin: 3 * beatMs, heartbeatDelayMargin: 3 * beatMs };
}
