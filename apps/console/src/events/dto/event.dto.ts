import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { EVENT_NAME_PATTERN, MAX_EVENT_NAME_LENGTH, MAX_EVENT_PAYLOAD_BYTES, type JsonValue } from '@baton/domain';
import { ErrorBodyView } from '../../common/error-body.view';
import { InstantQuery, PageQuery } from '../../common/query';
import { Raw } from '../../common/raw-json';
import type * as Api from '../../api-types';
import { RunView } from '../../runs/dto/run.dto';
import { IDEMPOTENCY_KEY_PATTERN } from '../../submissions/submission';
import { MAX_BATCH_EVENTS } from '../event';

/** Longest idempotency key: the bound IDEMPOTENCY_KEY_PATTERN holds (`{1,62}`), and events.idempotency_key's length. */
const IDEMPOTENCY_KEY_MAX_LENGTH = 62;
const NAME_DOC = `1 to ${MAX_EVENT_NAME_LENGTH} of A-Z a-z 0-9 . _ - : starting with a letter or digit; matched exactly`;
const KEY_DOC = `One event per tenant and key while events are kept (the tenant's run retention): a key used before answers the first event (status 200) and starts nothing. 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} of A-Z a-z 0-9 - _ . : ~, not starting with h<digits>: (inbound webhooks' delivery keys, which share this key space)`;

const NAME_SCHEMA = { type: String, pattern: EVENT_NAME_PATTERN.source, minLength: 1, maxLength: MAX_EVENT_NAME_LENGTH, example: 'order.paid' } as const;
const KEY_SCHEMA = { type: String, nullable: true, pattern: IDEMPOTENCY_KEY_PATTERN.source, minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH } as const;
const PAYLOAD_DOC = `A JSON object, at most ${MAX_EVENT_PAYLOAD_BYTES} bytes as JSON (default {})`;

/** One event of a batch (`events[i]`), checked as a single event is. */
export class EventItemDoc {
  @ApiProperty({ ...NAME_SCHEMA, description: `Its name, ${NAME_DOC}` }) name!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: PAYLOAD_DOC }) payload?: { [key: string]: JsonValue };
  @ApiPropertyOptional({ ...KEY_SCHEMA, description: `Its idempotency key. ${KEY_DOC}; null or absent: none` }) idempotencyKey?: string | null;
}

/** POST /api/events: one event, or `events` (a batch). Checked by the service (parse-events.ts), naming each field. */
export class EmitEventsDto {
  @ApiPropertyOptional({ ...NAME_SCHEMA, description: `One event: its name, ${NAME_DOC}` })
  @IsOptional()
  @Raw()
  name?: unknown;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: `One event: ${PAYLOAD_DOC}`, example: { order: { id: 'A-17' }, customer: { tier: 'gold' } } })
  @IsOptional()
  @Raw()
  payload?: unknown;

  @ApiPropertyOptional({ ...KEY_SCHEMA, description: `One event: its idempotency key. ${KEY_DOC}; null or absent: none` })
  @IsOptional()
  @Raw()
  idempotencyKey?: unknown;

  @ApiPropertyOptional({ type: [EventItemDoc], minItems: 1, maxItems: MAX_BATCH_EVENTS, description: `A batch: 1 to ${MAX_BATCH_EVENTS} events { name, payload, idempotencyKey }, each with its own result (give nothing else)` })
  @IsOptional()
  @Raw()
  events?: unknown;
}

export class EventView implements Api.TenantEvent {
  @ApiProperty() id!: number;
  @ApiProperty({ description: NAME_DOC }) name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) payload!: { [key: string]: JsonValue };
  @ApiProperty({ type: String, nullable: true }) idempotencyKey!: string | null;
  @ApiProperty({ description: 'When the console received it, epoch ms' }) receivedAt!: number;
  @ApiProperty({ type: [Number], description: 'The runs it started ([] when it matched no task); purged runs are still named' }) runIds!: number[];
}

export class EventDetailView extends EventView implements Api.TenantEventDetail {
  @ApiProperty({ type: [RunView], description: 'The runs it started that are still kept' }) runs!: RunView[];
}

export class RefusedEventRunView implements Api.RefusedEventRun {
  @ApiProperty() taskId!: number;
  @ApiProperty({ enum: [400, 404, 409], description: "400: the params made from the payload do not fit the handler's schema (errors name `tasks.<id>.params…`); 404: the task was deleted meanwhile; 409: the task's throttle keeps the FIRST payloads and the key's period is full (errors name `throttle`)" }) status!: number;
  @ApiProperty({ type: ErrorBodyView }) error!: ErrorBodyView;
}

export class EmittedEventView extends EventDetailView implements Api.EmittedEvent {
  @ApiProperty({ description: 'False: the idempotency key was used before, and this is the event first sent under it' }) created!: boolean;
  @ApiProperty({ type: [RefusedEventRunView], description: 'Subscribed tasks the event matched whose run could not be made' }) refusedRuns!: RefusedEventRunView[];
}

export class EmitResultView implements Api.EmitResult {
  @ApiProperty({ enum: [201, 200, 400], description: '201 stored now; 200 stored before under its idempotency key; 400 refused (errors name `events[i].field`)' }) status!: number;
  @ApiPropertyOptional({ type: EmittedEventView }) event?: EmittedEventView;
  @ApiPropertyOptional({ type: ErrorBodyView }) error?: ErrorBodyView;
}

export class EmitBatchView implements Api.EmitBatch {
  @ApiProperty({ type: [EmitResultView], description: 'One per event, in the order sent' }) results!: EmitResultView[];
  @ApiProperty({ description: 'Events stored by this request' }) created!: number;
  @ApiProperty({ description: 'Events answered with the event their idempotency key stored before' }) existing!: number;
  @ApiProperty({ description: 'Events refused (400)' }) refused!: number;
}

export class EventQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only events of this name' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  name?: string;

  @InstantQuery('Received at or after (epoch ms; default 0)', { min: 0 })
  from?: number;

  @InstantQuery('Received before (epoch ms; default: no bound)', { min: 0 })
  to?: number;

  @ApiPropertyOptional({ description: "Text to find in the payload's JSON (a substring, 2 to 200 characters; ASCII letters match either case, other characters as the database compares them: exactly on SQLite, case and accents folded by MariaDB's and MySQL's utf8mb4_unicode_ci). Each call then examines a bounded slice of events (20,000 on MariaDB, 5,000 on SQLite): a page may hold fewer matches than `limit`, even none, and still have a next one" })
  @IsOptional()
  @IsString()
  @MinLength(2)
  @MaxLength(200)
  q?: string;
}

export class EventPage implements Api.Page<EventView> {
  @ApiProperty({ type: [EventView], description: 'Newest first' }) items!: EventView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null when there is none' }) nextCursor!: string | null;
}
