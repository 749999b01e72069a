import { ApiError } from './api';

/**
 * An API error split the one way every form shows it: each reason beside the field it names, and
 * under `_` a banner only for what names none of `fields` (the fields this form shows), so no
 * reason shows twice and none is lost. A reason on a part of a field (`executorNetworks[6]`,
 * `retry.jitter` when only `retry` is shown) goes beside that field, naming the part.
 */
export function errorsOf(err: unknown, fields: readonly string[]): Record<string, string> {
  if (!(err instanceof ApiError)) return { _: (err as Error).message };
  const out: Record<string, string> = {};
  const unplaced: string[] = [];
  for (const [field, reason] of Object.entries(err.fieldErrors())) {
    const whole = fields.includes(field)
      ? field
      : fields.filter((f) => field.startsWith(`${f}[`) || field.startsWith(`${f}.`)).sort((a, b) => b.length - a.length)[0];
    const text = whole === field ? reason : `${field}: ${reason}`;
    if (whole === undefined) unplaced.push(text);
    else out[whole] = out[whole] ? `${out[whole]}; ${text}` : text;
  }
  // The message already lists every field's reason, so it only stands alone when none is placed.
  if (Object.keys(out).length === 0) out._ = err.message;
  else if (unplaced.length) out._ = unplaced.join('; ');
  return out;
}
