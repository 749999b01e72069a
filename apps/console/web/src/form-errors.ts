import { ApiError } from './api';

/** Field → reason from an API error, for showing beside a form's fields; the message is under `_`. */
export function errorsOf(err: unknown): Record<string, string> {
  return err instanceof ApiError ? { ...err.fieldErrors(), _: err.body.message } : { _: (err as Error).message };
}
