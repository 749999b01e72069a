import { Injectable, PipeTransform } from '@nestjs/common';
import { nameProblem } from '@baton/domain';
import { badRequest } from './api-error';

/**
 * A path's name of a task group (the names tasks carry: A-Z a-z 0-9 . _ -, 1 to 100); anything else
 * is a 400 naming the parameter. No task can be in a group of another spelling, so `/task-groups/%20bad/pause`
 * would otherwise answer 200 for nothing, with an audit record of it.
 */
@Injectable()
export class NamePipe implements PipeTransform<unknown, string> {
  constructor(private readonly field: string) {}

  transform(value: unknown): string {
    const problem = nameProblem(value);
    if (problem !== null) throw badRequest([{ field: this.field, reason: problem }]);
    return value as string;
  }
}
