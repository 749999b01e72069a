import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { FieldError } from '@baton/domain';
import { findLiveExecutors } from '@baton/persistence';
import { ParamsCheck } from './params-check';

/**
 * Whether a task's handler is offered by a live executor of its app, from the handler names the
 * executors' heartbeats report (executors.handlers): a typo in a handler, or the wrong app, is
 * said when the task is saved — not 10 s later as a START_LATE alarm, nor at run time. Saving is
 * still allowed: the executor may simply not be deployed yet.
 */
@Injectable()
export class HandlerCheck {
  constructor(
    private readonly dataSource: DataSource,
    private readonly params: ParamsCheck,
  ) {}

  /** The warnings of each (app, handler), in the order given; [] for one that a live executor offers. */
  async warnings(tenantId: string, tasks: ReadonlyArray<{ executorApp: string; handler: string }>): Promise<FieldError[][]> {
    const rows = await findLiveExecutors(this.dataSource.manager, tenantId, tasks.map((t) => t.executorApp));
    const offered = tasks.map(({ executorApp, handler }) => {
      const known = rows.filter((r) => r.app === executorApp && r.handlers !== null);
      return { names: [...new Set(known.flatMap((r) => r.handlers!))].sort(), known: known.length > 0, offers: known.some((r) => r.handlers!.includes(handler)) };
    });
    // Only a handler a live executor offers has a schema worth saying it cannot be used.
    const unusable = await this.params.unusableIn(tenantId, rows, tasks.map((task, i) => (offered[i].offers ? task : null)));
    return tasks.map(({ executorApp, handler }, i): FieldError[] => {
      if (!rows.some((r) => r.app === executorApp)) return [{ field: 'executorApp', reason: `no executor of app "${executorApp}" is up: its runs wait (START_LATE) until one is` }];
      const { names, known, offers } = offered[i];
      // Executors that have not said what they offer yet (before their first heartbeat since the upgrade): nothing to say.
      if (!known) return [];
      if (offers) return unusable[i] === null ? [] : [{ field: 'params', reason: `not checked: the params schema the executors declare for "${handler}" cannot be used (${unusable[i]})` }];
      const list = names.length > 20 ? `${names.slice(0, 20).join(', ')}, …` : names.join(', ');
      return [{ field: 'handler', reason: `no live executor of app "${executorApp}" offers handler "${handler}" (they offer: ${list || 'none'})` }];
    });
  }
}
