import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Min } from 'class-validator';
import { DEPENDENCY_CONDITIONS, type DependencyCondition } from '@baton/domain';
import { ErrorBodyView } from '../../common/error-body.view';
import { IntQuery } from '../../common/query';
import type * as Api from '../../api-types';

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
}

export class UpdateDependencyDto {
  @ApiProperty({ enum: DEPENDENCY_CONDITIONS })
  @IsIn(DEPENDENCY_CONDITIONS)
  condition!: DependencyCondition;
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
  @ApiProperty() createdAt!: number;
}

/** 409 DEPENDENCY_CYCLE: the ErrorBody and the cycle's task names. */
export class CycleErrorView extends ErrorBodyView {
  @ApiProperty({ type: [String], example: ['a', 'b', 'a'] }) cycle!: string[];
}
