import type { INestApplication } from '@nestjs/common';
import { ENGINE_CONFIG, EngineConfig } from './config/engine-config';
import { EngineLifecycleService } from './node/engine-lifecycle.service';
import { ClockWatch } from './common/clock-watch';

/**
 * Starts the engine of a Nest application that imports EngineModule, once its HTTP server
 * listens: registers the node with its callback URL and starts planning, claiming and
 * heartbeating, its clock measured against the database's first (ClockWatch). The URL is `url`, else BATON_ENGINE_URL (config.publicUrl), else the address
 * the server is bound to (so port 0 works); config.publicUrl is set to it, for the dispatch
 * side to tell executors where to call back. Throws EngineAlreadyRunningError when it must not
 * start (a second engine on SQLite, a node id in use). Returns the URL.
 */
export async function startEngine(app: INestApplication, options: { url?: string } = {}): Promise<string> {
  const config = app.get<EngineConfig>(ENGINE_CONFIG);
  const url = options.url ?? config.publicUrl ?? (await app.getUrl());
  config.publicUrl = url;
  // Measured before the node claims anything: its first claims and timers are on the database's time.
  await app.get(ClockWatch).check();
  await app.get(EngineLifecycleService).start(url);
  return url;
}
