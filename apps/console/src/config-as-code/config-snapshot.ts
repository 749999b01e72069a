import type { EntityManager } from 'typeorm';
import {
  allTasksByName,
  type CalendarEntity,
  findRetentionPolicy,
  listCalendars,
  listEdges,
  listWebhookChannels,
  type TaskDependencyEntity,
  type TaskEntity,
  taskEntityToDefinition,
  type WebhookChannelEntity,
} from '@baton/persistence';
import { fileTask } from '../tasks/file-task';
import type { ConfigFile } from './config-file';
import { edgeName } from './config-plan';

/** The tenant as stored, as a file and with the rows behind it. */
export interface Snapshot {
  file: ConfigFile;
  tasks: Map<string, TaskEntity>;
  calendars: Map<string, CalendarEntity>;
  webhooks: Map<string, WebhookChannelEntity>;
  edges: Map<string, TaskDependencyEntity>;
}

/** The retention policy row of the tenant itself (a task's row has its task id). */
export const TENANT_RETENTION_ROW = 0;

/** The tenant as stored (export's file, and what plan and apply compare the file to). */
export async function readSnapshot(em: EntityManager, tenantId: string): Promise<Snapshot> {
  const [taskRows, calendarRows, webhookRows, edgeRows, retention] = await Promise.all([
    allTasksByName(em, tenantId),
    listCalendars(em, tenantId),
    listWebhookChannels(em, tenantId),
    listEdges(em, tenantId),
    findRetentionPolicy(em, tenantId, TENANT_RETENTION_ROW),
  ]);
  const calendarName = new Map(calendarRows.map((c) => [c.id, c.name]));
  const taskName = new Map(taskRows.map((t) => [t.id, t.name]));
  const edges = new Map(edgeRows.map((e) => [edgeName({ parent: taskName.get(e.parentTaskId)!, child: taskName.get(e.childTaskId)! }), e]));
  return {
    file: {
      version: 1,
      retention: retention ? { runsMs: retention.runsMs, logsMs: retention.logsMs, alarmsMs: retention.alarmsMs, minRunsKept: retention.minRunsKept } : null,
      calendars: calendarRows.map((c) => ({ name: c.name, timeZone: c.timeZone, dates: [...c.dates].sort() })),
      webhooks: webhookRows.map((w) => ({ name: w.name, url: w.url, alarmTypes: w.alarmTypes, minSeverity: w.minSeverity })),
      tasks: taskRows.map((t) => fileTask(taskEntityToDefinition(t, t.calendarId === null ? null : (calendarName.get(t.calendarId) ?? null)))),
      dependencies: edgeRows.map((e) => ({ parent: taskName.get(e.parentTaskId)!, child: taskName.get(e.childTaskId)!, condition: e.condition, approval: e.approval })),
    },
    tasks: new Map(taskRows.map((t) => [t.name, t])),
    calendars: new Map(calendarRows.map((c) => [c.name, c])),
    webhooks: new Map(webhookRows.map((w) => [w.name, w])),
    edges,
  };
}
