import { Body, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTooManyRequestsResponse, getSchemaPath } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import type { Page } from '../common/cursor';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, TenantId, type Principal } from '../common/principal';
import { seesSecretValues, shownTo } from '../auth/secret-values';
import { HEAVY_WORK_BUSY } from '../common/tenant-heavy-work';
import { EmitBatchView, EmitEventsDto, EmittedEventView, EventDetailView, EventPage, EventQuery, EventView } from './dto/event.dto';
import { MAX_BATCH_EVENTS, MAX_EMIT_RUNS } from './event';
import { EventsService } from './events.service';

@ConsoleController('events', { tag: 'events' })
@ApiExtraModels(EmittedEventView, EmitBatchView)
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Post()
  @Audited('event.emit')
  @ApiOperation({
    summary: `Send an event (name, JSON payload, optional idempotency key), or a batch of up to ${MAX_BATCH_EVENTS} as { events: [...] }`,
    description:
      "Each event starts a run (cause EVENT, due now) of every unpaused task of the tenant whose EVENT trigger names it and whose filter its payload passes, with the payload (or the trigger's projection of it) as params. The event is stored with the ids of those runs in their transaction; an event that matches no task is stored too. A task that debounces or throttles per key gets its key's COALESCING run instead (one run per burst, with the last payload; see `debounce` and `throttle` on tasks), and each event of the burst lists that run. One event: 201 (200 with the first event and its runs when its idempotency key was used before, even by a request sent at the same moment: a repeat starts no run). A batch: 200 with each event's own result (201, 200, or 400 naming `events[i].field`). 429 (Retry-After) while this tenant has 20,000 events waiting to be matched to its tasks, or 20,000 submitted runs waiting to be written.",
  })
  @ApiBody({ type: EmitEventsDto })
  @ApiCreatedResponse({ type: EmittedEventView, description: 'One event, stored now' })
  @ApiOkResponse({ schema: { oneOf: [{ $ref: getSchemaPath(EmittedEventView) }, { $ref: getSchemaPath(EmitBatchView) }] }, description: 'One event stored before under its idempotency key, or a batch\'s results' })
  @ApiBadRequestResponse({ description: `The event (or the batch's shape) is refused: errors name \`name\`, \`payload\`, \`idempotencyKey\` or \`events\`; also when the request would start more than ${MAX_EMIT_RUNS} runs (its events × the tasks each matches), refused whole` })
  @ApiTooManyRequestsResponse({ description: 'This tenant has too many events waiting to be matched, or submitted runs waiting to be written' })
  async emit(
    @TenantId() tenantId: string,
    @Body() body: EmitEventsDto,
    @Headers('traceparent') traceparent: string | undefined,
    @Res({ passthrough: true }) response: { status(code: number): unknown },
  ): Promise<EmittedEventView | EmitBatchView> {
    const given = (body ?? {}) as Record<string, unknown>;
    if (given.events !== undefined) {
      response.status(200);
      return this.events.emitBatch(tenantId, given, traceparent);
    }
    const event = await this.events.emitOne(tenantId, given, traceparent);
    if (!event.created) response.status(200);
    return event;
  }

  @Get()
  @ApiOperation({
    summary: 'Events, newest first, by name, time range and payload text; cursor pagination on (receivedAt desc, id desc)',
    description: 'A viewer sees secret-named values of a payload (`password`, `apiToken`, …) as [redacted], and its payload-text search finds only text outside them.',
  })
  @ApiOkResponse({ type: EventPage })
  @ApiTooManyRequestsResponse({ description: HEAVY_WORK_BUSY })
  async list(@TenantId() tenantId: string, @Query() query: EventQuery, @CurrentPrincipal() principal: Principal): Promise<Page<EventView>> {
    return shownTo(principal, await this.events.list(tenantId, query, { secretValues: seesSecretValues(principal) }));
  }

  @Get(':id')
  @ApiOperation({ summary: "An event with the runs it started (a viewer sees the payload's secret-named values as [redacted])" })
  @ApiOkResponse({ type: EventDetailView })
  async get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @CurrentPrincipal() principal: Principal): Promise<EventDetailView> {
    return shownTo(principal, await this.events.get(tenantId, id));
  }
}
