import type { Scenario } from '../support/scenario';
import { burst } from './burst';
import { burstApi } from './burst-api';
import { singleFire } from './single-fire';
import { scale } from './scale';
import { queue } from './queue';
import { faults } from './faults';
import { slotHold } from './slot-hold';
import { sustained } from './sustained';
import { history } from './history';
import { fanOut } from './fan-out';
import { noisy } from './noisy';
import { paramsCheck } from './params-check';
import { claimTenants } from './claim-tenants';
import { executorClient } from './executor-client';
import { idle } from './idle';
import { runNow } from './run-now';
import { executorOverhead } from './executor-overhead';
import { ha } from './ha';
import { peers } from './peers';
import { auditSave } from './audit-save';
import { heavyNeighbour } from './heavy-neighbour';
import { ontime } from './ontime';
import { stateChanges } from './state-changes';
import { flood } from './flood';
import { onDemand } from './on-demand';

/** Every scenario, in the order `npm run bench` runs them. Add a scenario here and nowhere else. */
export const SCENARIOS: readonly Scenario[] = [burst, burstApi, singleFire, ontime, runNow, slotHold, queue, scale, faults, sustained, history, fanOut, noisy, paramsCheck, claimTenants, executorClient, executorOverhead, peers, onDemand, ha, auditSave, heavyNeighbour, flood, stateChanges, idle];
