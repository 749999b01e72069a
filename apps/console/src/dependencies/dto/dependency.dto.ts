import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Min } from 'class-validator';
import { API_KEY_PRINCIPAL_PREFIX, APPROVAL_GATE_DEFAULTS, APPROVAL_OUTCOMES, APPROVER_ROLES, DEPENDENCY_CONDITIONS, MAX_APPROVAL_TIMEOUT_MS, MAX_API_KEY_NAME_LENGTH, MAX_APPROVAL_USERS, MAX_USERNAME_LENGTH, MIN_APPROVAL_TIMEOUT_MS, type ApprovalGate, type ApprovalOutcome, type ApproverRole, type DependencyCondition } from '@baton/domain';
import { ErrorBodyView } from '../../common/error-body.view';
import { IntQuery } from '../../common/query';
import { Raw } from '../../common/raw-json';
import type * as Api from '../../api-types';

/** An edge's approval step as sent: every field optional, with its default (readApprovalGate). */
export class ApprovalGateDoc implements Partial<ApprovalGate> {
  @ApiPropertyOptional({
    enum: APPROVER_ROLES,
    nullable: true,
    default: null,
    description: 'Users of at least this role may decide (TENANT_VIEWER: every user of the tenant); null or absent (the default): only `users`. A gate names a role, users, or both (neither is a 400 naming `approval.role`)',
  })
  role?: ApproverRole | null;
  @ApiPropertyOptional({
    type: [String],
    default: [],
    maxItems: MAX_APPROVAL_USERS,
    description: `Usernames that may decide whatever their role (an API key: \`${API_KEY_PRINCIPAL_PREFIX}<name>\`, for chat-ops); default []. Each a username of 1 to ${MAX_USERNAME_LENGTH} characters or \`${API_KEY_PRINCIPAL_PREFIX}\` and a name of 1 to ${MAX_API_KEY_NAME_LENGTH}: another is a 400 naming \`approval.users[i]\``,
  })
  users?: string[];
  @ApiPropertyOptional({
    type: 'integer',
    default: APPROVAL_GATE_DEFAULTS.timeoutMs,
    minimum: MIN_APPROVAL_TIMEOUT_MS,
    maximum: MAX_APPROVAL_TIMEOUT_MS,
    description: `How long the run waits for a decision (ms, 1 s to 30 days); default ${APPROVAL_GATE_DEFAULTS.timeoutMs} (a day)`,
  })
  timeoutMs?: number;
  @ApiPropertyOptional({ enum: APPROVAL_OUTCOMES, default: APPROVAL_GATE_DEFAULTS.onTimeout, description: `What the deadline decides; default ${APPROVAL_GATE_DEFAULTS.onTimeout}` })
  onTimeout?: ApprovalOutcome;
}

/** An edge's approval step as answered: every field, defaults filled in. */
export class ApprovalGateView implements ApprovalGate {
  @ApiProperty({ enum: APPROVER_ROLES, nullable: true, description: 'Users of at least this role may decide; null: only `users`' })
  role!: ApproverRole | null;
  @ApiProperty({ type: [String], description: `Usernames (or \`${API_KEY_PRINCIPAL_PREFIX}<name>\`) that may decide whatever their role` })
  users!: string[];
  @ApiProperty({ type: 'integer', description: 'How long the run waits for a decision (ms)' })
  timeoutMs!: number;
  @ApiProperty({ enum: APPROVAL_OUTCOMES, description: 'What the deadline decides' })
  onTimeout!: ApprovalOutcome;
}

const APPROVAL_DOC = {
  type: ApprovalGateDoc,
  nullable: true,
  description: "An approval step: the child's run waits in APPROVAL_WAIT for a person's decision (POST /api/runs/{id}/approve or /reject) or the deadline's; null (default): the child fires at once",
};

export class CreateDependencyDto {
  @ApiProperty({ description: 'Task id of the parent (fires first)' })
  @IsInt()
  @Min(1)
  parentTaskId!: number;

  @ApiProperty({ description: 'Task id of the child (fires after the parent, per condition)' })
  @IsInt()
  @Min(1)
  childTaskId!: number;

  @ApiPropertyOptional({ enum: DEPENDENCY_CONDITIONS, default: 'ON_SUCCESS' })
  @IsOptional()
  @IsIn(DEPENDENCY_CONDITIONS)
  condition?: DependencyCondition;

  @ApiPropertyOptional(APPROVAL_DOC)
  @IsOptional()
  @Raw()
  approval?: unknown;
}

export class UpdateDependencyDto {
  @ApiPropertyOptional({ enum: DEPENDENCY_CONDITIONS, description: 'Unchanged when absent' })
  @IsOptional()
  @IsIn(DEPENDENCY_CONDITIONS)
  condition?: DependencyCondition;

  @ApiPropertyOptional({ ...APPROVAL_DOC, description: `${APPROVAL_DOC.description}. Unchanged when absent; null removes it (runs already waiting keep theirs)` })
  @IsOptional()
  @Raw()
  approval?: unknown;
}

export class DependencyQuery {
  @IntQuery('Only edges in which this task is parent or child', 1)
  taskId?: number;
}

export class DependencyView implements Api.Dependency {
  @ApiProperty() id!: number;
  @ApiProperty() parentTaskId!: number;
  @ApiProperty() parentName!: string;
  @ApiProperty() childTaskId!: number;
  @ApiProperty() childName!: string;
  @ApiProperty({ enum: DEPENDENCY_CONDITIONS }) condition!: DependencyCondition;
  @ApiProperty({ ...APPROVAL_DOC, type: ApprovalGateView }) approval!: ApprovalGate | null;
  @ApiProperty() createdAt!: number;
}

/** 409 DEPENDENCY_CYCLE: the ErrorBody (its `errors` naming the edge that closes the cycle) and the cycle's task names. */
export class CycleErrorView extends ErrorBodyView {
  @ApiProperty({ type: [String], example: ['a', 'b', 'a'], description: "The cycle's task names in order, the first repeated at the end; `errors` names the edge sent that closes it (`childTaskId`, or a file's `dependencies[i]`)" }) cycle!: string[];
}
