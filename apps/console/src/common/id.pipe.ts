import { Injectable, PipeTransform } from '@nestjs/common';
import { badRequest } from './api-error';

/** `0`, or an optional minus and a digit 1-9 then digits: one spelling per integer (no `01`, `+1`, ` 1`, `1.0`, `1e0`, `0x1`). */
const CANONICAL_INTEGER = /^(0|-?[1-9][0-9]*)$/;

/**
 * The integer a request spells in canonical decimal, within ±(2^53 − 1); null for any other
 * text. Every integer the console reads from a path or a query string goes through here, so
 * each object has one URL and `/api/tasks/1.0` is not task 1.
 */
export function canonicalInteger(text: unknown): number | null {
  if (typeof text !== 'string' || !CANONICAL_INTEGER.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** A positive id in canonical decimal (see canonicalInteger), else null. */
export function canonicalId(text: unknown): number | null {
  const value = canonicalInteger(text);
  return value !== null && value >= 1 ? value : null;
}

/** Parses a path id (see canonicalId); anything else is a 400 naming the parameter. */
@Injectable()
export class IdPipe implements PipeTransform<unknown, number> {
  constructor(private readonly field = 'id') {}

  transform(value: unknown): number {
    const id = canonicalId(value);
    if (id === null) throw badRequest([{ field: this.field, reason: 'must be a positive integer id in canonical decimal (1 to 9007199254740991)' }]);
    return id;
  }
}
