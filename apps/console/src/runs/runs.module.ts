import { Module } from '@nestjs/common';
import { RunChangesModule } from '../run-changes/run-changes.module';
import { RunActionsService } from './run-actions.service';
import { RunsController } from './runs.controller';
import { RunsService } from './runs.service';

@Module({ imports: [RunChangesModule], controllers: [RunsController], providers: [RunsService, RunActionsService], exports: [RunsService] })
export class RunsModule {}
