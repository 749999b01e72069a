import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { findHeldKeys } from '@baton/persistence';
import { KeyAdmissions } from '../runs/key-admissions';

/** Keys looked at per sweep. */
const KEYS_PER_SWEEP = 200;
/** One sweep every this many watchdog ticks (BATON_WATCHDOG_INTERVAL_MS, 500 ms by default: every 5 s). */
const TICKS_PER_SWEEP = 10;

/**
 * The safety net of concurrency keys: a keyed run's callback releases its key's place at once
 * (KeyAdmissions.release), but a run can end other ways (a timeout, a cancel by hand, a dead
 * executor's reconciliation) and an engine can die between a run's end and the release. Every
 * TICKS_PER_SWEEP watchdog ticks, keys with held runs (findHeldKeys, a loose index scan) are
 * released — each one a no-op when its key is still full. The scan goes on from the last tenant
 * it reached, so every tenant's keys come in turn however many there are.
 */
@Injectable()
export class HeldKeysSweep {
  private ticks = 0;
  private afterTenant = '';

  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: KeyAdmissions,
  ) {}

  /** Returns how many held runs it released (0 on the ticks between sweeps). */
  async tick(): Promise<number> {
    if (this.ticks++ % TICKS_PER_SWEEP !== 0) return 0;
    const refs = await findHeldKeys(this.dataSource.manager, { afterTenant: this.afterTenant, limit: KEYS_PER_SWEEP });
    this.afterTenant = refs.length < KEYS_PER_SWEEP ? '' : refs[refs.length - 1].tenantId;
    let released = 0;
    for (const ref of refs) released += await this.keys.release(ref);
    return released;
  }
}
