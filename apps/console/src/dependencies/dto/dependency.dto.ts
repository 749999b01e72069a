import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Min } from 'class-validator';
import { APPROVAL_OUTCOMES, APPROVER_ROLES, DEPENDENCY_CONDITIONS, type ApprovalGate, type ApprovalOutcome, type ApproverRole, type DependencyCondition } from '@baton/domain';
import { ErrorBodyView } from '../../common/error-body.view';
import { IntQuery } from '../../common/query';
import { Raw } from '../../common/raw-json';
import type * as Api from '../../api-types';

/** An edge's approval step, as the API gives and takes it. */
export class ApprovalGateDoc implements ApprovalGate {
  @ApiProperty({ enum: APPROVER_ROLES, nullable: true, default: null, description: 'Users of at least this role may decide (TENANT_VIEWER: every user of the tenant); null: only `users`' })
  role!: ApproverRole | null;
  @ApiProperty({ type: [String], default: [], maxItems: 50, description: 'Usernames that may decide whatever their role (an API key: `api-key:<name>`, for chat-ops); a gate names a role, users, or both. Each a username of 1 to 100 characters or `api-key:` and a name of 1 to 100: another is a 400 naming `approval.users[i]`' })
  users!: string[];
  @ApiProperty({ default: 86_400_000, minimum: 1000, maximum: 2_592_000_000, description: 'How long the run waits for a decision (ms, 1 s to 30 days)' })
  timeoutMs!: number;
  @ApiProperty({ enum: APPROVAL_OUTCOMES, default: 'REJECT', description: 'What the deadline decides' })
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
  @ApiProperty(APPROVAL_DOC) approval!: ApprovalGate | null;
  @ApiProperty() createdAt!: number;
}

/** 409 DEPENDENCY_CYCLE: the ErrorBody and the cycle's task names. */
export class CycleErrorView extends ErrorBodyView {
  @ApiProperty({ type: [String], example: ['a', 'b', 'a'] }) cycle!: string[];
}
