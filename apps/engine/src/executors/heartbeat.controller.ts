import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { PATHS, type ExecutorHeartbeatAck } from '@baton/protocol';
import { parseJsonBody } from '../security/bad-request';
import type { RawBodyRequest } from '../security/raw-body.middleware';
import { SignedRequests, unauthorized } from '../security/signed-requests';
import { readHeartbeat } from './heartbeat-body';
import { HeartbeatService } from './heartbeat.service';

/** `POST /baton/executors/heartbeat` (signed): an executor registers and stays UP. */
@Controller()
export class HeartbeatController {
  constructor(
    private readonly signed: SignedRequests,
    private readonly heartbeats: HeartbeatService,
  ) {}

  @Post(PATHS.heartbeat)
  @HttpCode(200)
  async heartbeat(@Req() req: RawBodyRequest): Promise<ExecutorHeartbeatAck> {
    const { tenant, body, secretVersion } = await this.signed.verify(req, PATHS.heartbeat);
    const heartbeat = readHeartbeat(parseJsonBody(body));
    if (heartbeat.tenantId !== tenant.id) {
      throw unauthorized('TENANT_MISMATCH', 'tenantId differs from the signing tenant');
    }
    return this.heartbeats.record(heartbeat, secretVersion);
  }
}
