import { Module } from '@nestjs/common';
import { HistoryJob } from './history-job';

/** Statistics rollups and retention: the engines' history job. */
@Module({
  providers: [HistoryJob],
  exports: [HistoryJob],
})
export class HistoryModule {}
