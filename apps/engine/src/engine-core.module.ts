import { DynamicModule, Global, Module } from '@nestjs/common';
import { CLOCK, Clock } from '@baton/domain';
import { ENGINE_CONFIG, EngineConfig } from './config/engine-config';
import { EngineMetrics } from './metrics/engine-metrics';

/**
 * The engine's shared injectables, global so both sides of the engine (claim and dispatch) and
 * their modules inject them without importing anything: ENGINE_CONFIG, CLOCK, EngineMetrics.
 */
@Global()
@Module({})
export class EngineCoreModule {
  static forRoot(config: EngineConfig, clock: Clock, metrics: EngineMetrics): DynamicModule {
    return {
      module: EngineCoreModule,
      providers: [
        { provide: ENGINE_CONFIG, useValue: config },
        { provide: CLOCK, useValue: clock },
        { provide: EngineMetrics, useValue: metrics },
      ],
      exports: [ENGINE_CONFIG, CLOCK, EngineMetrics],
    };
  }
}
