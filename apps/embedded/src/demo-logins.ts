import { ProcessConfig } from '@baton/config';
// The file alone: the console's index would load all of Nest into the CLI, which reads these logins too.
import { configuredPassword } from '../../console/src/common/password';
import { DEMO_TENANT_ID } from './demo-tasks';

/**
 * The demo tenant's admin and the operator, as `POST /api/auth/login` takes them (a tenant's user
 * names its tenant). The passwords are for a local trial; set them by env to change.
 */
export interface DemoLogins {
  tenant: { tenant: string; username: string; password: string };
  operator: { username: string; password: string };
}

export function demoLogins(env: NodeJS.ProcessEnv = process.env, values: ProcessConfig = ProcessConfig.load('embedded', env)): DemoLogins {
  return {
    tenant: { tenant: DEMO_TENANT_ID, username: 'demo', password: configuredPassword('BATON_DEMO_PASSWORD', values.string('BATON_DEMO_PASSWORD')) },
    operator: { username: 'operator', password: configuredPassword('BATON_OPERATOR_PASSWORD', values.string('BATON_OPERATOR_PASSWORD')) },
  };
}
