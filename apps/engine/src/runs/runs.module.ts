import { Module } from '@nestjs/common';
import { AlarmsModule } from '../alarms/alarms.module';
import { ApprovalDecisions } from './approval-decisions';
import { FollowUpsModule } from '../follow-ups/follow-ups.module';
import { WakeupsModule } from '../wakeups/wakeups.module';
import { DispatchMarks } from './dispatch-marks';
import { DispatchSetbacks } from './dispatch-setbacks';
import { FanOutNudges } from './fan-out-nudges';
import { FanOutSettler } from './fan-out-settler';
import { HeldAttempts } from './held-attempts';
import { KeyAdmissions } from './key-admissions';
import { RunClaims } from './run-claims';
import { RunEvents } from './run-events';
import { RetryBudgets } from './retry-budgets';
import { RunOutcomes } from './run-outcomes';
import { RunStart } from './run-start';

/**
 * The run lifecycle: every write that moves a run between states in the engine is made here,
 * with its side effects (alarms, follow-ups, a fan-out run's settling, in-process events) —
 * claims and give-backs (RunClaims, releaseHeldRuns), the start (RunStart, DispatchMarks; what
 * was sent, HeldAttempts, for its callback), a
 * dispatch that did not go through (DispatchSetbacks), an attempt's end (RunOutcomes,
 * FanOutSettler), a decision on a run waiting for approval (ApprovalDecisions), and what a withdrawn fire's executor says of it (WakeupsModule's WithdrawnFires, re-exported: a write that keeps the state). Each move is a guarded update declared in libs/persistence (runWrite) and checked
 * against the domain's RUN_TRANSITIONS; `run-writes-owners.spec.ts` keeps them called from here only.
 */
@Module({
  imports: [AlarmsModule, FollowUpsModule, WakeupsModule],
  providers: [KeyAdmissions, RunClaims, RunStart, DispatchMarks, HeldAttempts, DispatchSetbacks, RetryBudgets, RunOutcomes, RunEvents, FanOutNudges, FanOutSettler, ApprovalDecisions],
  exports: [KeyAdmissions, RunClaims, RunStart, DispatchMarks, HeldAttempts, DispatchSetbacks, RunOutcomes, RunEvents, FanOutSettler, ApprovalDecisions, WakeupsModule],
})
export class RunsModule {}
