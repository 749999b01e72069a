/**
 * The queueing model behind PRAM (§2.1): the pending-event set seen as an
 * M/M/1/N birth–death chain — arrivals (enqueues) at rate λ, services
 * (dequeues) at rate μ, at most N events.
 *
 * The OCR of the paper lost its formulas (3), (5) and (14), so this file uses
 * the textbook M/M/1/N results of its reference [7] (Kleinrock, vol. 1):
 * stationary π_n ∝ ρ^n for n = 0..N, ρ = λ/μ.
 */

/**
 * Stationary mean number in system of an M/M/1/N queue:
 * L = ρ/(1−ρ) − (N+1)ρ^(N+1)/(1−ρ^(N+1)), N/2 at ρ = 1;
 * with N = ∞ (M/M/1): ρ/(1−ρ) for ρ < 1, ∞ otherwise.
 */
export function expectedLengthMM1N(rho: number, capacity: number): number {
  if (!(rho >= 0)) throw new RangeError(`rho must be >= 0, got ${rho}`);
  if (!(capacity >= 0)) throw new RangeError(`capacity must be >= 0, got ${capacity}`);
  if (capacity === Infinity) return rho < 1 ? rho / (1 - rho) : Infinity;
  if (rho === 0) return 0;
  // ε = ln ρ; log1p/expm1 keep the digits that ρ − 1 and 1 − ρ^(N+1) would cancel near ρ = 1.
  const eps = Math.log1p(rho - 1);
  const n1 = capacity + 1;
  // Practically at ρ = 1, π_n ∝ e^(εn) is nearly uniform: mean N/2 plus ε times the variance N(N+2)/12.
  if (Math.abs(eps) * n1 < 1e-6) return capacity / 2 + (eps * capacity * (capacity + 2)) / 12;
  // For ρ > 1, ρ^(N+1) overflows; mirror it: n ↦ N − n turns ρ into 1/ρ.
  if (rho > 1) return capacity - expectedLengthMM1N(1 / rho, capacity);
  return rho / (1 - rho) - (n1 * Math.exp(n1 * eps)) / -Math.expm1(n1 * eps);
}

export interface QueueLengthForecast {
  /** Current number of events. */
  size: number;
  /** λ/(λ+μ): the share of recent operations that were arrivals, in [0, 1]. */
  arrivalShare: number;
  /** How many operations ahead to look. */
  horizon: number;
  /** N of the model (most events the queue can hold); Infinity for M/M/1. */
  capacity: number;
}

/**
 * Expected queue length after `horizon` transitions of the uniformised
 * M/M/1/N chain (each operation: +1 with probability p = λ/(λ+μ), else −1,
 * reflected at 0 and N), in O(1):
 *
 * - fluid part: size + horizon·(2p − 1), clamped to [0, N] — exact while
 *   neither boundary is reachable, which is the common case for a large queue;
 * - once the chain has had time to mix (its relaxation time
 *   1/(√q − √p)², q = 1 − p, fits in the horizon) and a stationary law exists
 *   (ρ < 1, or N finite), it settles at the stationary mean L, so the forecast
 *   does not fall below L (ρ < 1) or rise above it (ρ > 1).
 *
 * An exact transient would need O(horizon²) work per decision; this keeps the
 * decision O(1) and is exact in both limits that drive resizing (steady
 * drift, and a small queue in equilibrium).
 */
export function forecastQueueLength(f: QueueLengthForecast): number {
  const p = Math.min(1, Math.max(0, f.arrivalShare));
  const q = 1 - p;
  const cap = f.capacity;
  const fluid = Math.min(cap, Math.max(0, f.size + f.horizon * (p - q)));
  if (p === q) return fluid;
  const gap = Math.sqrt(q) - Math.sqrt(p);
  const relaxation = 1 / (gap * gap);
  const rho = q === 0 ? Infinity : p / q;
  const stationaryExists = rho < 1 || cap !== Infinity;
  if (!stationaryExists || relaxation > f.horizon) return fluid;
  const stationary = q === 0 ? cap : expectedLengthMM1N(rho, cap);
  return rho < 1 ? Math.max(fluid, stationary) : Math.min(fluid, stationary);
}
