import { Body, Get, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { CurrentPrincipal, type Principal } from '../common/principal';
import { PreferencesDto, PreferencesView } from './dto/preferences.dto';
import { PreferencesService } from './preferences.service';

@ConsoleController('me/preferences', { tag: 'auth', access: 'authenticated' })
export class PreferencesController {
  constructor(private readonly preferences: PreferencesService) {}

  @Get()
  @ApiOperation({ summary: "The logged-in user's language, time zone and theme (null: the browser's); 403 for an API key" })
  @ApiOkResponse({ type: PreferencesView })
  get(@CurrentPrincipal() principal: Principal): Promise<PreferencesView> {
    return this.preferences.get(principal);
  }

  @Put()
  @Audited('user.preferences')
  @ApiOperation({ summary: "Set the logged-in user's preferences (the whole set: an omitted or null field goes back to the browser's)" })
  @ApiOkResponse({ type: PreferencesView })
  put(@CurrentPrincipal() principal: Principal, @Body() body: PreferencesDto): Promise<PreferencesView> {
    return this.preferences.put(principal, body);
  }
}
