import type { ConfigFile, ExportShown } from './config-file';
import { ConfigThread } from './config-thread';
import type { PlanInput } from './plan-input';

/** Worker threads tasks as code's heavy parts run on (default 2). */
export const CONFIG_THREADS = 2;

type Thread = Pick<ConfigThread, 'read' | 'write' | 'plan' | 'close' | 'load'>;

/**
 * Tasks as code's worker threads (ConfigThread), each job to the one with the least work: with
 * one, every tenant's file waited behind whatever another tenant's was doing (beside a 2,000-task
 * plan, another tenant's 25 ms plan was answered in 2.8 s). A tenant has one heavy request at a
 * time (TenantHeavyWork), so another tenant's file now waits only while two others' are worked
 * on. A thread starts with its first job: the second only once two files are worked on together.
 */
export class ConfigThreads {
  constructor(private readonly threads: readonly Thread[] = Array.from({ length: CONFIG_THREADS }, () => new ConfigThread())) {}

  read(text: string, tenantId: string): ReturnType<ConfigThread['read']> {
    return this.least().read(text, tenantId);
  }

  write(file: ConfigFile, tenantId: string, shown: ExportShown): Promise<string> {
    return this.least().write(file, tenantId, shown);
  }

  plan(input: PlanInput): Promise<string> {
    return this.least().plan(input);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.close()));
  }

  private least(): Thread {
    return this.threads.reduce((best, thread) => (thread.load < best.load ? thread : best));
  }
}
