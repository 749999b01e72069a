import { Module } from '@nestjs/common';
import { ExecutorSecretService } from './executor-secret.service';
import { ExecutorsController } from './executors.controller';
import { ExecutorsService } from './executors.service';

@Module({ controllers: [ExecutorsController], providers: [ExecutorsService, ExecutorSecretService], exports: [ExecutorSecretService] })
export class ExecutorsModule {}
