import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { MAX_WAKE_RUNS, PATHS, provesWakeRows } from '@baton/protocol';
import type { NamedRunColumns } from '@baton/persistence';
import { ClaimSignal } from '../common/claim-signal';
import { WokenRows } from '../common/woken-rows';
import { badRequest, isInstant, isInt, parseJsonBody } from '../security/bad-request';
import type { RawBodyRequest } from '../security/raw-body.middleware';
import { SignedRequests } from '../security/signed-requests';

/**
 * `POST /baton/wake` (WakeRequest): the console has committed a run of the signing tenant due at
 * `dueAt`, before this engine's next claim poll, and may name it (`runIds`: claimed by id, only
 * the signer's). 204 whether or not this node claims now (its group, its look-ahead:
 * ClaimSignal.wake); 401 unsigned, 400 without an instant `dueAt` or with bad `runIds`.
 * Signed with the tenant's secret like every engine route, so nobody without it can make an engine
 * claim; a tenant's own wake-ups at most bring its claims forward, which its runs would get anyway.
 * 429 past the tenant's admission bounds on this engine (SignedRequests.handle); the console then
 * leaves the run to the next poll.
 * `runs`, the named runs' rows as the console committed them (WokenRows: dispatched without a read),
 * taken only with WAKE_ROWS_HEADER made with this node's wake key, which no tenant has (left
 * otherwise: the runs are read by id); 400 for proved rows that are not of `runIds` or of the signer.
 */
@Controller()
export class WakeController {
  constructor(
    private readonly signed: SignedRequests,
    private readonly signal: ClaimSignal,
    private readonly woken: WokenRows,
  ) {}

  @Post(PATHS.wake)
  @HttpCode(204)
  async wake(@Req() req: RawBodyRequest): Promise<void> {
    await this.signed.handle(req, PATHS.wake, async ({ tenant, body }) => {
      const { dueAt, runIds, runs } = parseJsonBody(body);
      if (!isInstant(dueAt) || !Number.isInteger(dueAt)) throw badRequest('dueAt', 'must be an integer instant (epoch ms)');
      if (runIds !== undefined && (!Array.isArray(runIds) || runIds.length > MAX_WAKE_RUNS || !runIds.every((id) => isInt(id, 1)))) {
        throw badRequest('runIds', `must be an array of at most ${MAX_WAKE_RUNS} run ids (positive integers)`);
      }
      const carried = runs !== undefined && this.keep(req, tenant.id, runs, (runIds as number[] | undefined) ?? []);
      this.signal.wake({ tenantId: tenant.id, engineGroup: tenant.engineGroup, dueAt, runIds: runIds as number[] | undefined }, carried);
    });
  }

  /**
   * A wake-up's rows, kept for the claim by id it prompts: only the console's, each of a named run.
   * Without the proof of this node's key they are left, and the runs read by id as for a wake-up
   * without rows: a console that read this node's key before the node restarted (it reads the live
   * engines once a second) still wakes it; a tenant's own rows change nothing. Whether they were
   * kept: a wake-up that brought them is a console's, and skips the tenant's wake floor (ClaimSignal).
   */
  private keep(req: RawBodyRequest, tenantId: string, runs: unknown, runIds: readonly number[]): boolean {
    if (!provesWakeRows(this.woken.key, req.headers)) return false;
    const named = new Set(runIds);
    if (!Array.isArray(runs) || !runs.every((r) => typeof r === 'object' && r !== null && named.has((r as { id?: unknown }).id as number))) {
      throw badRequest('runs', 'must be rows of runs named in runIds');
    }
    try {
      this.woken.put(tenantId, runs as NamedRunColumns[]);
    } catch (err) {
      throw badRequest('runs', `not run rows of the signing tenant: ${(err as Error).message}`);
    }
    return runs.length > 0;
  }
}
