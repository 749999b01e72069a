import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { Body, Get, HttpCode, Param, Post, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { HEAVY_WORK_BUSY, TenantHeavyWork } from '../common/tenant-heavy-work';
import { Audited } from '../audit';
import { seesSecretValues, shownTo } from '../auth/secret-values';
import { ConsoleController, RouteAccess } from '../common/access';
import type { Page } from '../common/cursor';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, TenantId, type Principal } from '../common/principal';
import { bulkRunIds } from './bulk-run-ids';
import { BulkRunsDto, BulkRunsView, DecideRunDto, RunAttemptsView, RunDetailView, RunPage, RunQuery, RunSearchPageView, RunSearchQuery, RunView } from './dto/run.dto';
import { RunActionsService } from './run-actions.service';
import { RunsService } from './runs.service';

@ConsoleController('runs', { tag: 'runs' })
export class RunsController {
  constructor(
    private readonly runs: RunsService,
    private readonly actions: RunActionsService,
    private readonly heavyWork: TenantHeavyWork,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Runs, newest scheduled first; cursor pagination on (scheduledAt desc, id desc)' })
  @ApiOkResponse({ type: RunPage })
  list(@TenantId() tenantId: string, @Query() query: RunQuery): Promise<Page<RunView>> {
    return this.runs.list(tenantId, query);
  }

  @Get('search')
  @ApiTooManyRequestsResponse({ description: HEAVY_WORK_BUSY })
  @ApiOperation({
    summary: 'Runs whose error text or params contain a text, scheduled in [from, to), newest first',
    description:
      'Each call examines a bounded slice of the range (20,000 runs on MariaDB, 5,000 on SQLite, newest first) and answers the matches in it: the time of a call does not grow with the history. Page on with nextCursor until it is null; searchedFrom says how far back the search has looked. A viewer searching params finds only text outside secret-named values (which it sees as [redacted]).',
  })
  @ApiOkResponse({ type: RunSearchPageView })
  search(@TenantId() tenantId: string, @Query() query: RunSearchQuery, @CurrentPrincipal() principal: Principal): Promise<RunSearchPageView> {
    return this.runs.search(tenantId, query, { secretValues: seesSecretValues(principal) });
  }

  @Get(':id')
  @ApiOperation({ summary: "A run with its params snapshot, result and log lines (a viewer sees secret-named values as [redacted], as in the run's task)" })
  @ApiOkResponse({ type: RunDetailView })
  async get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @CurrentPrincipal() principal: Principal): Promise<RunDetailView> {
    return shownTo(principal, await this.runs.get(tenantId, id, principal));
  }

  @Post(':id/approve')
  @HttpCode(200)
  @RouteAccess('authenticated')
  @Audited('run.approve')
  @ApiOperation({
    summary: 'Approve a run waiting for approval: it goes on at once (PENDING, claimed at once)',
    description:
      "Only a principal the run's approval step admits (its role or above, or a named user or API key `api-key:<name>`), of the run's tenant: 403 otherwise, whatever its role. 409 when the run is not waiting (no approval step, decided already, cancelled) or its deadline has come (the step decides by itself, even before an engine records it). Session or API key: a chat-ops bot approves with a key named in the step.",
  })
  @ApiOkResponse({ type: RunDetailView })
  async approve(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Body() body: DecideRunDto, @CurrentPrincipal() principal: Principal): Promise<RunDetailView> {
    return shownTo(principal, await this.actions.decide(tenantId, id, principal, 'APPROVE', body.comment ?? null));
  }

  @Post(':id/reject')
  @HttpCode(200)
  @RouteAccess('authenticated')
  @Audited('run.reject')
  @ApiOperation({
    summary: 'Reject a run waiting for approval: it fails as a failed run would (its ON_FAILURE children fire)',
    description:
      'The decision is recorded at once (answered with the run, still APPROVAL_WAIT, its approval decided REJECT); the engines end the run FAILED, with its alarm and follow-ups, at their next watchdog tick (BATON_WATCHDOG_INTERVAL_MS). Who may: as approve (403, 409 the same).',
  })
  @ApiOkResponse({ type: RunDetailView })
  async reject(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Body() body: DecideRunDto, @CurrentPrincipal() principal: Principal): Promise<RunDetailView> {
    return shownTo(principal, await this.actions.decide(tenantId, id, principal, 'REJECT', body.comment ?? null));
  }

  @Get(':id/attempts')
  @ApiOperation({ summary: 'Every attempt of a run, oldest first, each with its timeline (one fixed order, out-of-order reports flagged) and its log lines' })
  @ApiOkResponse({ type: RunAttemptsView })
  async attempts(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<RunAttemptsView> {
    return { items: await this.runs.attempts(tenantId, id) };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @Audited('run.cancel')
  @ApiOperation({ summary: 'Cancel an active run (409 when it is already over)' })
  @ApiOkResponse({ type: RunDetailView })
  cancel(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<RunDetailView> {
    return this.actions.cancel(tenantId, id);
  }

  @Post(':id/rerun')
  @Audited('run.rerun')
  @ApiOperation({ summary: 'Run a finished run again: a new MANUAL run of its task with the params it ran with (409 while active, for a shard, or when the task was deleted)' })
  @ApiCreatedResponse({ type: RunDetailView })
  rerun(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<RunDetailView> {
    return this.actions.rerun(tenantId, id);
  }

  @Post('bulk-cancel')
  @Audited('run.bulk-cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel several runs in one transaction: one result per id (a refused id does not undo the others)' })
  @ApiOkResponse({ type: BulkRunsView })
  async bulkCancel(@TenantId() tenantId: string, @Body() body: BulkRunsDto): Promise<BulkRunsView> {
    return { results: await this.actions.bulk(tenantId, bulkRunIds(body.ids), 'cancel') };
  }

  @Post('bulk-rerun')
  @Audited('run.bulk-rerun')
  @HttpCode(200)
  @ApiOperation({ summary: 'Run several finished runs again, each with its params, in one transaction: one result per id' })
  @ApiOkResponse({ type: BulkRunsView })
  async bulkRerun(@TenantId() tenantId: string, @Body() body: BulkRunsDto): Promise<BulkRunsView> {
    return { results: await this.actions.bulk(tenantId, bulkRunIds(body.ids), 'rerun') };
  }

  @Get(':id/log')
  @ApiOperation({ summary: "Download the run's whole log as text (every attempt, oldest line first): `<ISO time> <LEVEL> [attempt n] message`" })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The log, text/plain; an attachment named run-<id>.log', schema: { type: 'string' } })
  @ApiTooManyRequestsResponse({ description: HEAVY_WORK_BUSY })
  async log(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Res({ passthrough: true }) res: ServerResponse): Promise<StreamableFile> {
    // A tenant's heavy request (TenantHeavyWork): its lane is held until the answer ends or its client
    // leaves — a client gone while the request waited for the lane too: its response has emitted its
    // 'close' already and never would again, so the lane is given back at once.
    const release = await this.heavyWork.hold(tenantId);
    let text: Readable | null = null;
    const done = () => {
      text?.destroy(); // a client that left mid-answer: stop reading pages for it
      release();
    };
    if (res.closed) done();
    else res.once('close', done);
    try {
      const pages = this.runs.logText(tenantId, id);
      const first = await pages.next(); // a missing run is a 404 here, before the answer starts
      async function* all(): AsyncGenerator<string> {
        if (!first.done) yield first.value;
        yield* pages;
      }
      text = Readable.from(all());
      if (res.closed) text.destroy();
      return new StreamableFile(text, { type: 'text/plain; charset=utf-8', disposition: `attachment; filename="run-${id}.log"` });
    } catch (err) {
      release();
      throw err;
    }
  }
}
