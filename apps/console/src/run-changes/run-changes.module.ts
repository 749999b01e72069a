import { Module } from '@nestjs/common';
import { RunChangesService } from './run-changes.service';
import { RunDecisionsService } from './run-decisions.service';

/** The console's one door for moving runs between states (RunChangesService; decisions on approval steps: RunDecisionsService). */
@Module({ providers: [RunChangesService, RunDecisionsService], exports: [RunChangesService, RunDecisionsService] })
export class RunChangesModule {}
