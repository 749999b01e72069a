import type { FieldError, TaskInput } from '@baton/domain';
import { badRequest } from '../common/api-error';
import type { PatchTaskDto, TaskBodyDto } from './dto/task.dto';

/** The fields a client sent (the DTO instance also carries undefined for the absent ones). */
export function inputOf(dto: TaskBodyDto | PatchTaskDto): TaskInput {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(dto)) if (value !== undefined && key !== 'version') input[key] = value;
  return input as TaskInput;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A 400 naming each field and why. */
export function invalid(errors: FieldError[]): never {
  throw badRequest(errors);
}
