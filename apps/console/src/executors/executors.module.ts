import { Module } from '@nestjs/common';
import { XxlJobTokenService } from './xxl-job-token.service';
import { ExecutorSecretService } from './executor-secret.service';
import { ExecutorsController } from './executors.controller';
import { ExecutorsService } from './executors.service';

@Module({ controllers: [ExecutorsController], providers: [ExecutorsService, ExecutorSecretService, XxlJobTokenService], exports: [ExecutorSecretService] })
export class ExecutorsModule {}
