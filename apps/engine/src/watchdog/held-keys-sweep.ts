import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RunState } from '@baton/domain';
import { findHeldKeys, keyPlaceOf, type RunAttemptRow } from '@baton/persistence';
import { KeyAdmissions } from '../runs/key-admissions';

/** Keys looked at per sweep. */
const KEYS_PER_SWEEP = 200;
/** One sweep every this many watchdog ticks (BATON_WATCHDOG_INTERVAL_MS, 500 ms by default: every 5 s). */
const TICKS_PER_SWEEP = 10;

/**
 * The safety net of concurrency keys: a keyed run's end releases its key's place at once
 * (KeyAdmissions.release: its callback, or the watchdog's timeout or reconciliation through
 * `ended`), but a run can end other ways (a cancel by hand, a FORBID skip, a misfire at a
 * takeover) and an engine can die between a run's end and the release. Every
 * TICKS_PER_SWEEP watchdog ticks, keys with held runs (findHeldKeys, a loose index scan) are
 * released — each one a no-op when its key is still full. The scan goes on from the last tenant
 * it reached, so every tenant's keys come in turn however many there are. A key whose release
 * fails is logged and passed over: the other keys of the sweep, other tenants' among them, are
 * released all the same.
 */
@Injectable()
export class HeldKeysSweep {
  private readonly logger = new Logger('HeldKeysSweep');
  private ticks = 0;
  private afterTenant = '';

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: KeyAdmissions,
  ) {}

  /** A keyed run the watchdog ended for good (a timeout, a dead executor's run): its key's place goes to a held run now, not at the next sweep. */
  async ended(run: Pick<RunAttemptRow, 'tenantId' | 'runKey' | 'keyScope'>, state: RunState): Promise<void> {
    const place = keyPlaceOf(run);
    if (place !== null && state !== 'RETRY_WAIT') await this.keys.release(place);
  }

  /** Returns how many held runs it released (0 on the ticks between sweeps). */
  async tick(): Promise<number> {
    if (this.ticks++ % TICKS_PER_SWEEP !== 0) return 0;
    const refs = await findHeldKeys(this.dataSource.manager, { afterTenant: this.afterTenant, limit: KEYS_PER_SWEEP });
    this.afterTenant = refs.length < KEYS_PER_SWEEP ? '' : refs[refs.length - 1].tenantId;
    let released = 0;
    for (const ref of refs) {
      try {
        released += await this.keys.release(ref);
      } catch (err) {
        this.logger.warn(`held runs of a key of scope ${ref.scope} not released: ${(err as Error).message}`, { tenantId: ref.tenantId });
      }
    }
    return released;
  }
}
