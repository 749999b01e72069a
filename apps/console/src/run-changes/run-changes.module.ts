import { Module } from '@nestjs/common';
import { RunChangesService } from './run-changes.service';

/** The console's one door for moving runs between states (RunChangesService). */
@Module({ providers: [RunChangesService], exports: [RunChangesService] })
export class RunChangesModule {}
