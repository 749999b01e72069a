import { DynamicModule, Global, Module } from '@nestjs/common';
import { CLOCK, Clock, systemClock } from './clock';
import {
  CONSOLE_OPTIONS,
  ConsoleModuleOptions,
  DEFAULT_PASSWORD_HASH_ROUNDS,
  DEFAULT_SESSION_TTL_MS,
  ResolvedConsoleOptions,
} from './options';

/** The console's shared providers: the clock and the resolved options. */
@Global()
@Module({})
export class ConsoleCoreModule {
  static forRoot(options: ConsoleModuleOptions): DynamicModule {
    const resolved: ResolvedConsoleOptions = {
      sessionTtlMs: options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
      passwordHashRounds: options.passwordHashRounds ?? DEFAULT_PASSWORD_HASH_ROUNDS,
    };
    const clock: Clock = options.clock ?? systemClock;
    return {
      module: ConsoleCoreModule,
      providers: [
        { provide: CLOCK, useValue: clock },
        { provide: CONSOLE_OPTIONS, useValue: resolved },
      ],
      exports: [CLOCK, CONSOLE_OPTIONS],
    };
  }
}
