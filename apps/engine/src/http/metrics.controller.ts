import { Controller, Get, Headers, Inject, Res, UnauthorizedException } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../metrics/engine-metrics';
import type { HttpResponse } from './http-response';

/** `GET /metrics`: the node's Prometheus metrics, text exposition format; with BATON_METRICS_TOKEN, only for `Authorization: Bearer <token>`. */
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: EngineMetrics,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  @Get()
  async metricsText(@Headers('authorization') authorization: string | undefined, @Res({ passthrough: true }) res: HttpResponse): Promise<string> {
    const token = this.config.metricsToken;
    if (token !== null && !sameText(authorization ?? '', `Bearer ${token}`)) throw new UnauthorizedException('GET /metrics needs Authorization: Bearer <BATON_METRICS_TOKEN>');
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    return this.metrics.registry.metrics();
  }
}

/** Compared in constant time: how long a refusal takes tells nothing of the token. */
function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
