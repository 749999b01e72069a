import { ApiProperty } from '@nestjs/swagger';
import type * as Api from '../../api-types';

export class FieldChangeView implements Api.FieldChange {
  @ApiProperty({ description: 'Dotted path: `trigger.expression`, `params.region`' }) field!: string;
  @ApiProperty({ nullable: true, description: 'The value in the version before (absent: the field was not set)' }) before!: unknown;
  @ApiProperty({ nullable: true, description: 'The value in this version' }) after!: unknown;
}

export class TaskVersionView implements Api.TaskVersion {
  @ApiProperty() version!: number;
  @ApiProperty({ description: 'When the change was made (epoch ms)' }) at!: number;
  @ApiProperty({ type: String, nullable: true, description: 'Who made it: username or `api-key:<name>`' }) actor!: string | null;
  @ApiProperty({ description: 'The task definition this version saved' }) definition!: Record<string, unknown>;
  @ApiProperty({ type: [FieldChangeView], description: 'Field by field, what this version changed from the one before it (empty for the first)' }) changes!: FieldChangeView[];
  @ApiProperty({ type: [Number], description: 'The next fire times (epoch ms, up to 5) this definition gives from now' }) nextFireTimes!: number[];
  @ApiProperty({ description: 'Whether this is the definition the task has now' }) current!: boolean;
}
