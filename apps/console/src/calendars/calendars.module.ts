import { Module } from '@nestjs/common';
import { RunChangesModule } from '../run-changes/run-changes.module';
import { CalendarsController } from './calendars.controller';
import { CalendarsService } from './calendars.service';

@Module({ imports: [RunChangesModule], controllers: [CalendarsController], providers: [CalendarsService], exports: [CalendarsService] })
export class CalendarsModule {}
