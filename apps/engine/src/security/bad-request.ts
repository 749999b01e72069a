import { HttpException } from '@nestjs/common';
import { fieldErrorBody, jsonDeeperThan, jsonDepthReason } from '@baton/protocol';

/** 400 VALIDATION_FAILED naming the offending field (the executor SDK drops a callback refused with 400 for good). */
export function badRequest(field: string, reason: string): HttpException {
  return new HttpException(fieldErrorBody(field, reason), 400);
}

/** The signed body as JSON, or 400 (malformed, not an object, or nested deeper than MAX_JSON_DEPTH: the readers recurse). */
export function parseJsonBody(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('body', 'malformed JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('body', 'must be a JSON object');
  if (jsonDeeperThan(value)) throw badRequest('body', jsonDepthReason());
  return value as Record<string, unknown>;
}

export function isInt(value: unknown, min = 0, max = Number.MAX_SAFE_INTEGER): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

export function isInstant(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < 1e15;
}
