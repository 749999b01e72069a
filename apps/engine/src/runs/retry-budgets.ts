import { Inject, Injectable, Logger } from '@nestjs/common';
import { RetryBudget } from '@baton/domain';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { BoundedTenantLabels } from '../metrics/bounded-tenant-labels';
import { MetricsTenantLabels } from '../metrics/metrics-tenant-labels';

/** Budgets are looked over for idle ones once there are this many (a map of the tenants that ended attempts lately). */
const SWEEP_ABOVE = 1_024;
/** A tenant's paced retries are logged at most once this often. */
const LOG_EVERY_MS = 60_000;

/**
 * Each tenant's retry budget on this engine (domain RetryBudget): RunOutcomes tells it of the
 * first attempts that end and asks it when each retry may be due. In memory, per engine, like the
 * tenant's dispatch quota: a cluster of n engines lets a tenant retry n times the rate.
 */
@Injectable()
export class RetryBudgets {
  private readonly logger = new Logger('RetryBudgets');
  private readonly budgets = new Map<string, RetryBudget>();
  private readonly loggedAt = new Map<string, number>();

  private readonly labels: BoundedTenantLabels;

  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: Pick<EngineConfig, 'retryBudgetPercent' | 'retryBudgetPerSec' | 'loadMetricTenants'>,
    private readonly metrics: EngineMetrics,
    tenantLabels: MetricsTenantLabels,
  ) {
    this.labels = new BoundedTenantLabels(config.loadMetricTenants, tenantLabels);
  }

  /** `n` first attempts of the tenant ended at `now`. */
  firstAttemptsEnded(tenantId: string, n: number, now: number): void {
    if (n > 0 && this.config.retryBudgetPerSec > 0) this.budgetOf(tenantId, now).firstAttemptsEnded(n, now);
  }

  /** When a retry of the tenant that its backoff makes due at `dueAt` is due: then, or later when the budget paces it. */
  dueAt(tenantId: string, runId: number, dueAt: number, now: number): number {
    if (this.config.retryBudgetPerSec === 0) return dueAt;
    const placed = this.budgetOf(tenantId, now).place(dueAt, now);
    if (!placed.paced) return dueAt;
    this.metrics.retriesPaced.inc({ tenant: this.labels.label(tenantId) });
    if (now - (this.loggedAt.get(tenantId) ?? Number.NEGATIVE_INFINITY) >= LOG_EVERY_MS) {
      this.loggedAt.set(tenantId, now);
      this.logger.log(
        `tenant ${tenantId}'s retries are past its retry budget on this engine (${this.config.retryBudgetPerSec}/s and ${this.config.retryBudgetPercent} % of its first attempts a second): run ${runId}'s next attempt is due ${placed.dueAt - dueAt} ms after its backoff's time (logged at most once a minute)`,
        { tenantId, runId },
      );
    }
    return placed.dueAt;
  }

  private budgetOf(tenantId: string, now: number): RetryBudget {
    let budget = this.budgets.get(tenantId);
    if (budget) return budget;
    if (this.budgets.size >= SWEEP_ABOVE) this.forgetIdle(now);
    budget = new RetryBudget({ share: this.config.retryBudgetPercent / 100, perSecond: this.config.retryBudgetPerSec });
    this.budgets.set(tenantId, budget);
    return budget;
  }

  /** An idle budget is as new: the map keeps only the tenants whose attempts ended lately. */
  private forgetIdle(now: number): void {
    for (const [tenantId, budget] of this.budgets) {
      if (!budget.idle(now)) continue;
      this.budgets.delete(tenantId);
      this.loggedAt.delete(tenantId);
    }
  }
}
