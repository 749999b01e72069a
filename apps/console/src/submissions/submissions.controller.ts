import { Body, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiConflictResponse, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { RunDetailView } from '../runs/dto/run.dto';
import { RunsService } from '../runs/runs.service';
import { SubmitBatchDto, SubmitBatchView, TriggerRunDto } from './dto/submission.dto';
import { IDEMPOTENCY_KEY_HEADER, MAX_BATCH_SUBMISSIONS } from './submission';
import { SubmissionsService } from './submissions.service';

@ConsoleController('runs', { tag: 'runs' })
export class BatchSubmissionsController {
  constructor(private readonly submissions: SubmissionsService) {}

  @Post('batch')
  @HttpCode(200)
  @Audited('run.submit-batch')
  @ApiOperation({
    summary: `Submit up to ${MAX_BATCH_SUBMISSIONS} runs (of one task or several) in one request, each with its params and optional idempotency key`,
    description:
      'Each submission is a PENDING run due now, as POST /api/tasks/{id}/trigger makes. With atomic=false (default) each has its own result (201 made, 200 made before under its idempotency key, 400, 404, 409 throttled by its key); with atomic=true all are written or none (a 400 naming every refused item as `runs[i].field`). One audit record per request. 429 (Retry-After) while this tenant has 20,000 submitted runs waiting to be written.',
  })
  @ApiOkResponse({ type: SubmitBatchView })
  @ApiBadRequestResponse({ description: "The body is not a batch (errors name `runs`, `runs[i].field`, `atomic`, and every item's key and params' size too), or atomic and a submission was refused (errors name every refused item's fields)" })
  @ApiTooManyRequestsResponse({ description: 'This tenant has too many submitted runs waiting to be written' })
  submitBatch(@TenantId() tenantId: string, @Body() body: SubmitBatchDto, @Headers('traceparent') traceparent: string | undefined): Promise<SubmitBatchView> {
    return this.submissions.submitBatch(tenantId, body ?? {}, traceparent);
  }
}

@ConsoleController('tasks', { tag: 'tasks' })
export class TriggerController {
  constructor(
    private readonly submissions: SubmissionsService,
    private readonly runs: RunsService,
  ) {}

  @Post(':id/trigger')
  @Audited('task.trigger')
  @ApiOperation({
    summary: 'Run the task now (PENDING run, cause MANUAL); optional params override for this run',
    description:
      "Works on a paused task too: pausing stops the schedule, not an explicit request. With an Idempotency-Key header, one run per key and task however often it is sent: a key used before answers 200 with the run it made. A task with `debounce` or `throttle` (per key of the params): the run may be its key's COALESCING run, opened now (201) or joined (200, its params replaced); a throttle keeping the FIRST payloads answers 409 naming `throttle` once its key's period is full.",
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: `1 to 62 of A-Z a-z 0-9 - _ . : ~; another is a 400 naming the header, \`${IDEMPOTENCY_KEY_HEADER}\`` })
  @ApiBody({ type: TriggerRunDto, required: false })
  @ApiCreatedResponse({ type: RunDetailView, description: 'The run made now' })
  @ApiOkResponse({ type: RunDetailView, description: 'The run this Idempotency-Key made before, or the COALESCING run of a debounced or throttled key this trigger joined' })
  @ApiConflictResponse({ description: 'Throttled: the key has its `limit` runs in this period and the task keeps the FIRST payloads (errors name `throttle`)' })
  @ApiTooManyRequestsResponse({ description: 'This tenant has too many submitted runs waiting to be written' })
  async trigger(
    @TenantId() tenantId: string,
    @Param('id', new IdPipe()) id: number,
    @Body() body: TriggerRunDto,
    @Headers(IDEMPOTENCY_KEY_HEADER) idempotencyKey: string | undefined,
    @Headers('traceparent') traceparent: string | undefined,
    @Res({ passthrough: true }) response: { status(code: number): unknown },
  ): Promise<RunDetailView> {
    const { run, created } = await this.submissions.trigger(tenantId, id, body ?? {}, idempotencyKey, traceparent);
    if (created) return run;
    response.status(200);
    // A repeat answers the run its key made as it is now, as GET /api/runs/{id} shows it (its executor, its logs): the
    // answer of a new run is the row it was written as, which has neither yet, and saves its request the reads.
    return this.runs.get(tenantId, run.id);
  }
}
