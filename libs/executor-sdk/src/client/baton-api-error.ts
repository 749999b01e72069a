/** A field the console names in an error, and why. */
export interface FieldProblem {
  field: string;
  reason: string;
}

/**
 * The console refused a request (or could not be reached): `status` 0 when no answer came, `code`
 * the error body's stable code (VALIDATION_FAILED, NOT_FOUND, RATE_LIMITED, UNAUTHORIZED, …, or
 * UNREACHABLE), `errors` the fields at fault.
 */
export class BatonApiError extends Error {
  override readonly name = 'BatonApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: FieldProblem[] = [],
  ) {
    super(message);
  }
}
