import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { dialectOf, findEvent, findTenantRuns, listEvents, type EventEntity } from '@baton/persistence';
import { shownTextContains } from '@baton/domain';
import { errorBody } from '@baton/protocol';
import { auditNoChange } from '../audit';
import { badRequest, notFound } from '../common/api-error';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, type Page } from '../common/cursor';
import { searchInSlices } from '../common/search-in-slices';
import { TenantHeavyWork } from '../common/tenant-heavy-work';
import type { RunView } from '../runs/dto/run.dto';
import { runView } from '../runs/runs.service';
import { submissionSpan } from '../submissions/submission-span';
import type { SubmissionOutcome } from '../submissions/submission';
import { SubmissionsService } from '../submissions/submissions.service';
import type { EmitBatchView, EmitResultView, EmittedEventView, EventDetailView, EventQuery, EventView, RefusedEventRunView } from './dto/event.dto';
import { MAX_EMIT_RUNS, type EventInput } from './event';
import { EventReads } from './event-reads';
import { EVENT_ROWS, type EventsWrite } from './event-rows';
import { eventSubmissions } from './event-runs';
import { parseEvent, parseEventBatch } from './parse-events';

/**
 * A tenant's events: sent (each starting the runs of the tenant's tasks it matches), listed, read.
 *
 * An event and the runs it starts are written by the submissions lane (SubmissionsService), in one
 * transaction with the runs, their audit record and the engines' wake-up (EVENT_ROWS: an event
 * under an idempotency key before its runs, so that a repeat starts none; one without, after
 * them), so neither is ever stored without the other. Matching reads only the
 * tenant's tasks subscribed to the event's name (ix_tasks_event), before the lane, in a lane of
 * its own (EventReads).
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly submissions: SubmissionsService,
    private readonly heavyWork: TenantHeavyWork,
    private readonly reads: EventReads,
  ) {}

  /**
   * POST /api/events with one event: 201 stored now, or 200 the event its idempotency key stored before; 400 naming the field.
   * `delivery`: an inbound webhook's (its key is of webhookDeliveryKey's form, which the API refuses).
   */
  async emitOne(tenantId: string, body: unknown, traceparent?: string, delivery = false): Promise<EmittedEventView> {
    const parsed = parseEvent(body, '', delivery);
    if ('errors' in parsed) throw badRequest(parsed.errors);
    return submissionSpan('baton.event.emit', traceparent, { 'baton.tenant_id': tenantId, 'baton.event': parsed.event.name }, async (traceParent) => (await this.emit(tenantId, [parsed.event], 'name', traceParent))[0]);
  }

  /** POST /api/events with `events`: each event's own result (a bad one is its own 400; the others are stored). */
  async emitBatch(tenantId: string, body: { events?: unknown }, traceparent?: string): Promise<EmitBatchView> {
    const parsed = parseEventBatch(body);
    if ('errors' in parsed) throw badRequest(parsed.errors);
    const good = parsed.items.flatMap((item) => ('event' in item ? [item.event] : []));
    if (good.length === 0) auditNoChange();
    const emitted = good.length === 0 ? [] : await submissionSpan('baton.events.emit-batch', traceparent, { 'baton.tenant_id': tenantId, 'baton.events': good.length }, (traceParent) => this.emit(tenantId, good, 'events', traceParent));
    let next = 0;
    const results: EmitResultView[] = parsed.items.map((item) => {
      if ('errors' in item) return { status: 400, error: errorBody(400, { errors: item.errors }) };
      const event = emitted[next++];
      return { status: event.created ? 201 : 200, event };
    });
    const count = (status: number) => results.filter((r) => r.status === status).length;
    return { results, created: count(201), existing: count(200), refused: count(400) };
  }

  /** Stores valid events with their runs and answers each, in order; 400 naming `field` when they would start more than MAX_EMIT_RUNS runs. */
  private async emit(tenantId: string, events: readonly EventInput[], field: 'name' | 'events', traceParent?: string): Promise<EmittedEventView[]> {
    // A repeat of a stored key is answered from its event, without a write (a concurrent repeat
    // still gets past here: the lane writes its event before its runs, meets the key, and starts none).
    const { stored, subscribers } = await this.reads.of(tenantId, events);
    // A key given again later in the same request is a repeat of its first event too: it starts
    // nothing. Matched on its own it would start the runs of tasks the first did not match (another
    // name, or a payload another filter passes), runs that no event lists.
    const firstOfKey = new Map<string, EventInput>();
    const fresh = events.filter((e) => {
      if (e.idempotencyKey === null) return true;
      if (stored.has(e.idempotencyKey) || firstOfKey.has(e.idempotencyKey)) return false;
      firstOfKey.set(e.idempotencyKey, e);
      return true;
    });
    const answers = new Map<EventInput, EmittedEventView>();
    // Every event a repeat: nothing is written, so there is nothing to audit.
    if (fresh.length === 0) auditNoChange();
    else {
      const { submissions, owner, matched } = eventSubmissions(fresh, subscribers, traceParent, MAX_EMIT_RUNS);
      if (matched > MAX_EMIT_RUNS) {
        const what = field === 'name' ? 'this event matches' : 'these events match';
        throw badRequest([{ field, reason: `${what} ${matched} tasks' triggers; one request starts at most ${MAX_EMIT_RUNS} runs${field === 'events' ? ': send fewer events a call' : ''}` }]);
      }
      const write: EventsWrite = { events: fresh, owner, written: [] };
      const outcomes = await this.submissions.submit(tenantId, submissions, {
        atomic: false,
        fieldPrefix: (k) => `tasks.${submissions[k].taskId}.`,
        alongside: { writer: EVENT_ROWS, item: write },
        auditChange: () => ({
          objectType: 'event',
          objectId: write.written.length === 1 ? write.written[0].row.id : null,
          after: { events: write.written.map(({ row, created }) => ({ eventId: row.id, name: row.name, runIds: row.runIds, created })) },
        }),
      });
      for (const [j, event] of fresh.entries()) {
        const { row, created } = write.written[j];
        const mine = outcomes.filter((_, k) => owner[k] === j);
        answers.set(
          event,
          created
            ? { ...eventView(row), created, runs: mine.flatMap((o) => ('run' in o ? [runView(o.run, o.taskName)] : [])), refusedRuns: refusedOf(mine, submissions.filter((_, k) => owner[k] === j).map((s) => s.taskId)) }
            : { ...(await this.withRuns(tenantId, row)), created, refusedRuns: [] },
        );
      }
    }
    const out: EmittedEventView[] = [];
    for (const event of events) {
      const own = answers.get(event);
      if (own) {
        out.push(own);
        continue;
      }
      // A repeat: of this request's first event of its key, or of the event the key stored before.
      const key = event.idempotencyKey!;
      const first = firstOfKey.get(key);
      out.push({ ...(first ? answers.get(first)! : await this.withRuns(tenantId, stored.get(key)!)), created: false, refusedRuns: [] });
    }
    return out;
  }

  /**
   * GET /api/events: newest first, by name, time range and (bounded, like run search) payload text.
   * `shown.secretValues` false (a viewer): a payload-text match found only inside secret-named
   * values is left out (shownTextContains), as the viewer sees them redacted — the search would
   * otherwise tell a secret a character at a time.
   */
  async list(tenantId: string, query: EventQuery, shown: { secretValues: boolean }): Promise<Page<EventView>> {
    const from = query.from ?? 0;
    const to = query.to ?? Number.MAX_SAFE_INTEGER;
    if (to <= from) throw badRequest([{ field: 'to', reason: `must be after from (${from})` }]);
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const slice = (below: typeof after, scanBudget: number, left: number) =>
      listEvents(this.dataSource.manager, { tenantId, name: query.name, from, to, text: query.q, after: below, scanBudget, limit: left });
    // With a payload text, a bounded search (searchInSlices); without, one page of the list (scanBudget unused).
    const read = async () => {
      const page = query.q === undefined ? await slice(after, 0, limit) : await searchInSlices(dialectOf(this.dataSource.manager), { after, limit }, slice);
      const q = query.q;
      const rows = q !== undefined && !shown.secretValues ? page.rows.filter((row) => shownTextContains(row.payload, q)) : page.rows;
      return { items: rows.map(eventView), nextCursor: page.next ? encodeCursor(page.next.time, page.next.id) : null };
    };
    return query.q === undefined ? read() : this.heavyWork.run(tenantId, read);
  }

  /** GET /api/events/:id: the event with the runs it started that are still kept; 404 for another tenant's. */
  async get(tenantId: string, id: number): Promise<EventDetailView> {
    const row = await findEvent(this.dataSource.manager, tenantId, id);
    if (!row) throw notFound('Event', id);
    return this.withRuns(tenantId, row);
  }

  private async withRuns(tenantId: string, row: EventEntity): Promise<EventDetailView> {
    const { runs, tasks } = await findTenantRuns(this.dataSource.manager, { tenantId, ids: row.runIds });
    const views: RunView[] = row.runIds.flatMap((id) => {
      const run = runs.get(id);
      return run ? [runView(run, tasks.get(run.taskId)?.name ?? null)] : [];
    });
    return { ...eventView(row), runs: views };
  }
}

export function eventView(row: EventEntity): EventView {
  return { id: row.id, name: row.name, payload: row.payload, idempotencyKey: row.idempotencyKey, receivedAt: row.receivedAt, runIds: row.runIds };
}

function refusedOf(outcomes: readonly SubmissionOutcome[], taskIds: readonly number[]): RefusedEventRunView[] {
  return outcomes.flatMap((o, k) => ('error' in o ? [{ taskId: taskIds[k], status: o.status, error: o.error }] : []));
}
