import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { ErrorBodyView } from '../../common/error-body.view';
import { ANY_JSON, Raw } from '../../common/raw-json';
import { RunView } from '../../runs/dto/run.dto';
import { MAX_BATCH_SUBMISSIONS } from '../submission';


/** POST /api/tasks/:id/trigger: the run's params and its flow's (the Idempotency-Key header names it). */
export class TriggerRunDto {
  @ApiPropertyOptional({ ...ANY_JSON, description: "Params for this run only, any JSON value (default: the task's)" })
  @IsOptional()
  @Raw()
  params?: unknown;

  @ApiPropertyOptional({
    ...ANY_JSON,
    description: 'Params of the flow this run starts, any JSON value: every run of the flow (this one and the runs its dependencies fire) sees them as ctx.flowParams',
  })
  @IsOptional()
  @Raw()
  flowParams?: unknown;
}

export class SubmissionDoc {
  @ApiProperty({ description: 'The task to run (one of the tenant\'s)' }) taskId!: number;
  @ApiPropertyOptional({ ...ANY_JSON, description: "The run's params, any JSON value ≤ 64 000 bytes (default: the task's)" }) params?: unknown;
  @ApiPropertyOptional({ ...ANY_JSON, description: 'Params of the flow this run starts (ctx.flowParams of every run of the flow)' }) flowParams?: unknown;
  @ApiPropertyOptional({
    type: String,
    description: 'One run per key and task however often it is sent: 1 to 62 of A-Z a-z 0-9 - _ . : ~. A key used before answers the run it made (status 200).',
  })
  idempotencyKey?: string;
}

/** POST /api/runs/batch. */
export class SubmitBatchDto {
  @ApiProperty({ type: [SubmissionDoc], minItems: 1, maxItems: MAX_BATCH_SUBMISSIONS, description: `1 to ${MAX_BATCH_SUBMISSIONS} submissions` })
  @IsOptional()
  @Raw()
  runs?: unknown;

  @ApiPropertyOptional({ type: Boolean, default: false, description: 'true: all written or none (a 400 naming every refused item); false: each on its own, with its own result' })
  @IsOptional()
  @Raw()
  atomic?: unknown;
}

export class SubmissionResultView {
  @ApiProperty({
    enum: [201, 200, 400, 404, 409],
    description:
      '201 made now; 200 made before under this idempotency key; 400 refused (errors name every `runs[i].field` at fault: key, params against their schema, and `runs[i].taskId` when the task is unknown too); 404 no such task (its only problem); ' +
      "409 throttled: the task's throttle keeps the FIRST payloads and the key's period is full (code CONFLICT, errors naming `throttle`; the task's rule, so an atomic batch's other runs are still written)",
  })
  status!: number;
  @ApiPropertyOptional({ type: RunView }) run?: RunView;
  @ApiPropertyOptional({ type: ErrorBodyView }) error?: ErrorBodyView;
}

export class SubmitBatchView {
  @ApiProperty({ type: [SubmissionResultView], description: 'One per submission, in the order sent' }) results!: SubmissionResultView[];
  @ApiProperty({ description: 'Runs made by this request' }) created!: number;
  @ApiProperty({ description: 'Submissions answered with the run their idempotency key made before' }) existing!: number;
  @ApiProperty({ description: 'Submissions refused (400, 404) or throttled (409)' }) refused!: number;
}
