import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '@baton/domain';
import type { Principal } from '../common/principal';
import { AuditActionGuard } from './audit-action.guard';
import { auditNoChange, deferredAudit } from './audit-context';
import { countAuditRecord, currentActorName } from './audit-scope';
import { auditScopes, recordsProblem } from './audit-scopes';

const clock = new ManualClock(1_000);
const admin: Principal = { kind: 'apiKey', username: 'api-key:ci', role: 'TENANT_ADMIN', tenantId: 'acme', userId: null, actsForUserId: null, sessionId: null, apiKeyId: 7, ssoProvider: null };

/** A request through the middleware: `route` runs as the handler would (guards first), later than the middleware, after an await. */
async function serve(route: (request: { principal?: Principal }) => Promise<void>, status = 200): Promise<void> {
  const request: { principal?: Principal; ip: string; method: string; url: string } = { ip: '10.0.0.9', method: 'POST', url: '/api/tasks/1/trigger' };
  const response = Object.assign(new EventEmitter(), { statusCode: status });
  let handled!: Promise<void>;
  auditScopes(clock)(request, response, () => {
    handled = (async () => {
      await Promise.resolve();
      await route(request);
    })();
  });
  await handled;
  response.emit('finish');
}

describe('auditScopes: each HTTP request’s audit scope', () => {
  afterEach(() => vi.restoreAllMocks());
  const errors = () => vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);

  it('names the principal the auth guard set after the scope was made, and the action of the route’s guard', async () => {
    let seen: ReturnType<typeof deferredAudit> = null;
    let name: string | null = null;
    const logged = errors();
    await serve(async (request) => {
      request.principal = admin;
      new AuditActionGuard('task.trigger').canActivate();
      seen = deferredAudit();
      name = currentActorName();
      seen!.counted();
    });
    expect(seen).toMatchObject({ actor: { kind: 'apiKey', name: 'api-key:ci', apiKeyId: 7, address: '10.0.0.9' }, action: 'task.trigger' });
    expect(name).toBe('api-key:ci');
    expect(logged).not.toHaveBeenCalled();
  });

  it('logs an @Audited route that succeeded with no record or two, and a route not @Audited that wrote one', async () => {
    const logged = errors();
    await serve(async () => void new AuditActionGuard('task.trigger').canActivate());
    await serve(async () => {
      new AuditActionGuard('task.trigger').canActivate();
      countAuditRecord();
      countAuditRecord();
    });
    await serve(async () => countAuditRecord());
    expect(logged.mock.calls.map(([line]) => line)).toEqual([
      'POST /api/tasks/1/trigger (task.trigger) wrote 0 audit records, not 1',
      'POST /api/tasks/1/trigger (task.trigger) wrote 2 audit records, not 1',
      'POST /api/tasks/1/trigger wrote 1 audit records but is not @Audited',
    ]);
  });

  it('expects nothing of a refused request, nor of one that said it changed nothing', async () => {
    const logged = errors();
    await serve(async () => void new AuditActionGuard('task.trigger').canActivate(), 404);
    await serve(async () => {
      new AuditActionGuard('run.cancel-bulk').canActivate();
      auditNoChange();
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it('keeps requests apart: a record counts against its own request', async () => {
    const logged = errors();
    await Promise.all([serve(async () => void new AuditActionGuard('a.one').canActivate()), serve(async () => void (new AuditActionGuard('a.two').canActivate(), countAuditRecord()))]);
    expect(logged.mock.calls.map(([line]) => line)).toEqual(['POST /api/tasks/1/trigger (a.one) wrote 0 audit records, not 1']);
  });

  it('recordsProblem: exactly one for an @Audited change, none when unchanged or not @Audited', () => {
    expect(recordsProblem({ action: 'x', recorded: 1 })).toBeNull();
    expect(recordsProblem({ action: 'x', recorded: 0, unchanged: true })).toBeNull();
    expect(recordsProblem({ action: 'x', recorded: 1, unchanged: true })).toBe('(x) wrote 1 audit records, not 0');
    expect(recordsProblem({ action: null, recorded: 0 })).toBeNull();
  });
});
