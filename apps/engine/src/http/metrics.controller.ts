import { Controller, Get, Res } from '@nestjs/common';
import { EngineMetrics } from '../metrics/engine-metrics';
import type { HttpResponse } from './http-response';

/** `GET /metrics`: the node's Prometheus metrics, text exposition format. */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: EngineMetrics) {}

  @Get()
  async metricsText(@Res({ passthrough: true }) res: HttpResponse): Promise<string> {
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    return this.metrics.registry.metrics();
  }
}
