import { Module } from '@nestjs/common';
import { RunChangesModule } from '../run-changes/run-changes.module';
import { DependenciesController } from './dependencies.controller';
import { DependenciesService } from './dependencies.service';
import { NewParents } from './new-parents';

@Module({ imports: [RunChangesModule], controllers: [DependenciesController], providers: [DependenciesService, NewParents], exports: [NewParents] })
export class DependenciesModule {}
