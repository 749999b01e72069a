import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { canonicalTimeZone } from '@baton/domain';
import { readUserPreferences, writeUserPreferences, type UserPreferences } from '@baton/persistence';
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
    if (!(await writeUserPreferences(this.dataSource.manager, userOf(principal), prefs))) throw notFound('User', principal.username);
    return prefs as PreferencesView;
  }
}

function userOf(principal: Principal): number {
  if (principal.userId === null) throw forbidden('Preferences belong to a console user: an API key has none');
  return principal.userId;
}
