import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { canonicalTimeZone } from '@baton/domain';
import { inTransaction, readUserPreferences, writeUserPreferences, type UserPreferences } from '@baton/persistence';
import { auditChange } from '../audit';
import { badRequest, forbidden, notFound } from '../common/api-error';
import type { Principal } from '../common/principal';
import type { PreferencesDto, PreferencesView } from './dto/preferences.dto';

/** A logged-in user's display preferences, kept with the user so they follow it from browser to browser. */
@Injectable()
export class PreferencesService {
  constructor(private readonly dataSource: DataSource) {}

  async get(principal: Principal): Promise<PreferencesView> {
    const prefs = await readUserPreferences(this.dataSource.manager, userOf(principal));
    if (!prefs) throw notFound('User', principal.username);
    return prefs as PreferencesView;
  }

  async put(principal: Principal, dto: PreferencesDto): Promise<PreferencesView> {
    let timeZone: string | null = null;
    if (dto.timeZone !== undefined && dto.timeZone !== null) {
      timeZone = canonicalTimeZone(dto.timeZone);
      if (timeZone === null) throw badRequest([{ field: 'timeZone', reason: `"${dto.timeZone}" is not an IANA time zone (e.g. Asia/Shanghai, UTC)` }]);
    }
    const prefs: UserPreferences = { language: dto.language ?? null, timeZone, theme: dto.theme ?? null };
    const userId = userOf(principal);
    await inTransaction(this.dataSource, async (em) => {
      const before = await readUserPreferences(em, userId);
      if (!before || !(await writeUserPreferences(em, userId, prefs))) throw notFound('User', principal.username);
      await auditChange(em, { tenantId: principal.tenantId, objectType: 'user-preferences', objectId: userId, before, after: prefs });
    });
    return prefs as PreferencesView;
  }
}

function userOf(principal: Principal): number {
  if (principal.userId === null) throw forbidden('Preferences belong to a console user: an API key has none');
  return principal.userId;
}
