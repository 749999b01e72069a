import { relativizePaths } from '@baton/protocol';
import type { JsonValue } from '@baton/domain';
import type { RunCallback } from '@baton/protocol';
import { RunAbortedError } from './run-aborted-error';
import { truncateUtf8 } from './log-tail';
import { isNonRetryable } from './non-retryable-error';

const MAX_ERROR_BYTES = 8192;

/** How a handler call ended: returned, threw, or ignored an abort for longer than the grace. */
export type Settled = { kind: 'returned'; value: unknown } | { kind: 'threw'; error: unknown } | { kind: 'abandoned' };

/** The outcome fields of a final callback. */
export interface FinalFields {
  outcome: NonNullable<RunCallback['outcome']>;
  result?: JsonValue;
  error?: string;
  /** FAILED by a NonRetryableError (or any error with `nonRetryable: true`): the engine does not retry. */
  retryable?: false;
}

/**
 * The outcome of a settled handler: ABORTED when its run was aborted (`abortError`, the reason
 * of its signal; whatever it did then; a result it still returned is kept), FAILED when it threw
 * (not retryable when it threw a NonRetryableError) or its result is not JSON or too big, else
 * SUCCEEDED.
 */
export function outcomeOf(s: Exclude<Settled, { kind: 'abandoned' }>, abortError: RunAbortedError | undefined, maxResultBytes: number): FinalFields {
  let result: JsonValue | undefined;
  if (s.kind === 'returned' && s.value !== undefined) {
    let text: string | undefined;
    try {
      text = JSON.stringify(s.value);
    } catch (err) {
      if (!abortError) return { outcome: 'FAILED', error: `the handler's result is not JSON-serialisable: ${(err as Error).message}` };
    }
    if (text !== undefined && Buffer.byteLength(text) > maxResultBytes) {
      if (!abortError) return { outcome: 'FAILED', error: `the handler's result is ${Buffer.byteLength(text)} bytes of JSON, more than maxResultBytes (${maxResultBytes})` };
    } else if (text !== undefined) {
      result = JSON.parse(text) as JsonValue;
    }
  }
  if (abortError) {
    const cause = s.kind === 'threw' && !(s.error instanceof RunAbortedError) ? `; the handler threw: ${errorText(s.error)}` : '';
    return { outcome: 'ABORTED', error: truncateUtf8(messageOf(abortError) + cause, MAX_ERROR_BYTES), result };
  }
  if (s.kind === 'threw') {
    const failed: FinalFields = { outcome: 'FAILED', error: truncateUtf8(errorText(s.error), MAX_ERROR_BYTES) };
    if (isNonRetryable(s.error)) failed.retryable = false;
    return failed;
  }
  return { outcome: 'SUCCEEDED', result };
}

/** The message of an abort reason (a RunAbortedError). */
export function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/** An error as text: its stack when it has one (first line the message, paths relative to the working directory). */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.stack ? relativizePaths(error.stack, [process.cwd()]) : `${error.name}: ${error.message}`;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
