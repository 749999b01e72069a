import type { EngineAnswer } from './engine-client';

/** What a round over the engines came to: the answer that settled it, if any, and every answer it got. */
export interface RoundResult {
  settled?: EngineAnswer;
  answers: EngineAnswer[];
}

/**
 * One round over the engines, in `urls`' order, that one hanging engine cannot hold: the first
 * engine is sent the request; the next one is when it answers without settling it, or when it
 * has not answered within `rerouteAfterMs` — that engine is then set aside (`onSlow`) and keeps
 * its request (a late answer that settles the round still counts). Resolves with the first
 * answer that settles the round (`settles`), or once every engine has answered without one.
 * A round used to wait out each engine's full request timeout, one after the other: a hanging
 * engine (black-holed, frozen) held every heartbeat for the timeout — as long as an executor may
 * stay silent before it is DOWN — and every callback routed to it first.
 */
export function engineRound(
  urls: readonly string[],
  send: (url: string) => Promise<EngineAnswer>,
  settles: (answer: EngineAnswer) => boolean,
  rerouteAfterMs: number,
  onSlow: (url: string) => void,
): Promise<RoundResult> {
  return new Promise((resolve) => {
    const answers: EngineAnswer[] = [];
    let next = 0;
    let outstanding = 0;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (settled?: EngineAnswer) => {
      done = true;
      clearTimeout(timer);
      resolve(settled ? { settled, answers } : { answers });
    };
    const tryNext = () => {
      clearTimeout(timer);
      if (done) return;
      if (next >= urls.length) {
        if (outstanding === 0) finish();
        return;
      }
      const url = urls[next++];
      outstanding++;
      timer = setTimeout(() => {
        onSlow(url);
        tryNext();
      }, rerouteAfterMs);
      timer.unref?.();
      void send(url).then((answer) => {
        outstanding--;
        if (done) return;
        answers.push(answer);
        if (settles(answer)) finish(answer);
        else tryNext();
      });
    };
    tryNext();
  });
}
