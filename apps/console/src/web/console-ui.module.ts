import { Module } from '@nestjs/common';
import { ConsoleUiController, CronPreviewController } from './console-ui.controller';
import { ConsoleUiService } from './console-ui.service';

/** What the web console reads beyond the resource API: cron preview, task summaries, stats series. */
@Module({ controllers: [CronPreviewController, ConsoleUiController], providers: [ConsoleUiService] })
export class ConsoleUiModule {}
