import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, settledBySweep, type Clock } from '@baton/domain';
import { findUnsettledWithdrawals } from '@baton/persistence';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { WithdrawnFires } from '../wakeups/withdrawn-fires';
import { KEEPS_SENT_AHEAD_LEASE_FROM, SentAheadHandBacks } from './sent-ahead-hand-backs';

/** Unsettled withdrawals looked at per tick, oldest instant first. */
const BATCH = 100;

/**
 * The withdrawn prepared fires of this node's groups whose executor never said whether it started
 * them (no answer to the abort, no callback: it died, or the messages were lost), settled by what
 * can be told without it (domain settledBySweep), once their instant is BATON_EXECUTOR_GRACE_MS
 * past (heartbeats and callbacks written meanwhile have landed by then):
 *
 * - never started, when its executor keeps the sent-ahead lease (protocol 3) and its last
 *   heartbeat is older than the instant by more than the lease the hand-backs count with
 *   (SentAheadHandBacks.beyondMs): it let the fire go unstarted — its instant is given back;
 * - else, once the run's deadline is a grace past, taken as run as prepared (UNKNOWN): a started
 *   run's callback would have come by then, and a fire planned again that had run would be the
 *   instant's second — never twice beats late.
 *
 * Each settle is guarded (once, whichever engine or word comes first).
 */
@Injectable()
export class WithdrawalsSweep {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly withdrawn: WithdrawnFires,
    private readonly handBacks: SentAheadHandBacks,
  ) {}

  /** How many withdrawals this tick settled. */
  async tick(): Promise<number> {
    const now = this.clock.now();
    const settleAfterMs = this.config.executorGraceMs;
    const fires = await findUnsettledWithdrawals(this.dataSource.manager, { groups: this.config.groups, instantBefore: now - settleAfterMs, limit: BATCH });
    let settled = 0;
    for (const fire of fires) {
      const executor = fire.executor && { keepsLease: fire.executor.protocolVersion >= KEEPS_SENT_AHEAD_LEASE_FROM, heartbeatAt: fire.executor.heartbeatAt };
      const how = settledBySweep({ instant: fire.scheduledAt, deadlineAt: fire.deadlineAt, executor }, { now, leaseMs: this.handBacks.beyondMs, settleAfterMs });
      if (how && (await this.withdrawn.settleQuietly(fire.tenantId, fire.runId, fire.attempt, how))) settled++;
    }
    return settled;
  }
}
