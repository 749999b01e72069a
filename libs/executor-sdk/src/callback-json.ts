import type { RunCallback } from '@baton/protocol';

const texts = new WeakMap<RunCallback, string>();

/**
 * The JSON text of a final callback, made once: its spool line and the request that delivers it
 * carry the same text (a callback is not changed once it is built).
 */
export function callbackJson(callback: RunCallback): string {
  let text = texts.get(callback);
  if (text === undefined) {
    text = JSON.stringify(callback);
    texts.set(callback, text);
  }
  return text;
}
