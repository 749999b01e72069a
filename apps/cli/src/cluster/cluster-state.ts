import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What `baton cluster` keeps between starts, per database: the executor secret is shown only when the tenant is created. */
export interface ClusterState {
  tenantId: string;
  executorSecret: string;
}

/** The state of the cluster on database `database`: `.tmp/cluster/<database>.json` in the checkout (mode 600: it holds a secret). */
export class ClusterStateFile {
  readonly path: string;

  constructor(root: string, database: string) {
    this.path = join(root, '.tmp', 'cluster', `${database}.json`);
  }

  read(): ClusterState | undefined {
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as ClusterState;
    } catch {
      return undefined;
    }
  }

  write(state: ClusterState): void {
    mkdirSync(join(this.path, '..'), { recursive: true });
    writeFileSync(this.path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  }

  delete(): void {
    rmSync(this.path, { force: true });
  }
}
