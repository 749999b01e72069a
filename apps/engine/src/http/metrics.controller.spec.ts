import { UnauthorizedException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import type { EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import { MetricsController } from './metrics.controller';
import type { HttpResponse } from './http-response';

const response = { setHeader: () => undefined } as unknown as HttpResponse;
const controller = (metricsToken: string | null) => new MetricsController(new EngineMetrics({ defaultMetrics: false }), { metricsToken } as EngineConfig);

describe('GET /metrics', () => {
  it('with BATON_METRICS_TOKEN, answers only Authorization: Bearer <token>', async () => {
    const metrics = controller('scrape-token');
    await expect(metrics.metricsText(undefined, response)).rejects.toBeInstanceOf(UnauthorizedException);
    await expect(metrics.metricsText('Bearer wrong-token!', response)).rejects.toBeInstanceOf(UnauthorizedException);
    await expect(metrics.metricsText('scrape-token', response)).rejects.toBeInstanceOf(UnauthorizedException);
    expect(await metrics.metricsText('Bearer scrape-token', response)).toContain('baton_engine_');
  });

  it('without it, answers anyone', async () => {
    expect(await controller(null).metricsText(undefined, response)).toContain('baton_engine_');
  });
});
