import { Injectable, PipeTransform } from '@nestjs/common';
import { badRequest } from './api-error';

/** Parses a numeric path id; anything else is a 400 naming the parameter. */
@Injectable()
export class IdPipe implements PipeTransform<string, number> {
  constructor(private readonly field = 'id') {}

  transform(value: string): number {
    if (!/^[1-9][0-9]{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw badRequest([{ field: this.field, reason: 'must be a positive integer id' }]);
    }
    return Number(value);
  }
}
