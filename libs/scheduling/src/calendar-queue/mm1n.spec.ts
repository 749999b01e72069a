import { describe, expect, it } from 'vitest';
import { expectedLengthMM1N, forecastQueueLength } from './mm1n';

/** Mean of π_n ∝ ρ^n over n = 0..N, summed directly (weights scaled by ρ^-N when ρ > 1 so they stay finite). */
function bruteForceMean(rho: number, n: number): number {
  let z = 0;
  let mean = 0;
  for (let k = 0; k <= n; k++) {
    const w = rho > 1 ? Math.pow(rho, k - n) : Math.pow(rho, k);
    z += w;
    mean += k * w;
  }
  return mean / z;
}

describe('expectedLengthMM1N', () => {
  it('matches textbook values', () => {
    expect(expectedLengthMM1N(0.5, Infinity)).toBeCloseTo(1, 12); // ρ/(1−ρ)
    expect(expectedLengthMM1N(0.9, Infinity)).toBeCloseTo(9, 10);
    expect(expectedLengthMM1N(1, Infinity)).toBe(Infinity);
    expect(expectedLengthMM1N(0.5, 1)).toBeCloseTo(1 / 3, 12); // ρ/(1+ρ) for N = 1
    expect(expectedLengthMM1N(2, 1)).toBeCloseTo(2 / 3, 12);
    expect(expectedLengthMM1N(1, 10)).toBe(5); // uniform at ρ = 1
    expect(expectedLengthMM1N(0, 10)).toBe(0);
  });

  it('agrees with the stationary distribution summed directly, including ρ > 1 and ρ ≈ 1', () => {
    for (const rho of [0.01, 0.3, 0.77, 0.999, 0.9999999, 1.0000001, 1.2, 3, 50]) {
      for (const n of [1, 2, 7, 50, 400]) {
        expect(expectedLengthMM1N(rho, n)).toBeCloseTo(bruteForceMean(rho, n), 6);
      }
    }
  });

  it('stays finite and within [0, N] where ρ^(N+1) over- or underflows', () => {
    const high = expectedLengthMM1N(1.5, 5000);
    expect(high).toBeGreaterThan(4990);
    expect(high).toBeLessThanOrEqual(5000);
    expect(expectedLengthMM1N(0.5, 1e6)).toBeCloseTo(1, 9);
  });

  it('refuses nonsense', () => {
    expect(() => expectedLengthMM1N(-1, 10)).toThrow(RangeError);
    expect(() => expectedLengthMM1N(NaN, 10)).toThrow(RangeError);
    expect(() => expectedLengthMM1N(0.5, -1)).toThrow(RangeError);
  });
});

describe('forecastQueueLength', () => {
  it('follows the drift while no boundary is reachable', () => {
    // 90 % arrivals: +0.8 per operation.
    expect(forecastQueueLength({ size: 1000, arrivalShare: 0.9, horizon: 500, capacity: Infinity })).toBeCloseTo(1400, 9);
    // Balanced: stays where it is, however long the horizon.
    expect(forecastQueueLength({ size: 1000, arrivalShare: 0.5, horizon: 1e6, capacity: Infinity })).toBe(1000);
  });

  it('never forecasts below zero or above capacity', () => {
    expect(forecastQueueLength({ size: 100, arrivalShare: 0, horizon: 500, capacity: Infinity })).toBe(0);
    expect(forecastQueueLength({ size: 100, arrivalShare: 1, horizon: 500, capacity: 300 })).toBe(300);
  });

  it('settles at the stationary mean once the chain has mixed', () => {
    // ρ = 0.25/0.75 = 1/3 → L = 0.5; relaxation 1/(√.75 − √.25)² ≈ 7.5 operations ≪ horizon.
    expect(forecastQueueLength({ size: 0, arrivalShare: 0.25, horizon: 1000, capacity: Infinity })).toBeCloseTo(0.5, 9);
    // From above, the drift brings it down to L, not below.
    expect(forecastQueueLength({ size: 50, arrivalShare: 0.25, horizon: 1000, capacity: Infinity })).toBeCloseTo(0.5, 9);
    // A finite N gives ρ > 1 a stationary law too: it settles just below N.
    const full = forecastQueueLength({ size: 10, arrivalShare: 0.75, horizon: 1000, capacity: 20 });
    expect(full).toBeCloseTo(expectedLengthMM1N(3, 20), 9);
  });

  it('does not jump to a far stationary mean the chain cannot reach within the horizon', () => {
    // ρ = 0.98: L = 49, but relaxation ≈ 10 000 operations > horizon 256: stay on the drift.
    const f = forecastQueueLength({ size: 3, arrivalShare: 0.98 / 1.98, horizon: 256, capacity: Infinity });
    expect(f).toBeLessThan(3);
    expect(f).toBeGreaterThan(0);
  });
});
