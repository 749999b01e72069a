import { Body, Delete, Get, HttpCode, Param, Patch, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { Audited } from '../audit';
import { ConsoleController } from '../common/access';
import { IdPipe } from '../common/id.pipe';
import { TenantId } from '../common/principal';
import { CalendarsService } from './calendars.service';
import { CalendarBodyDto, CalendarPatchDto, CalendarView } from './dto/calendar.dto';

@ConsoleController('calendars', { tag: 'calendars' })
export class CalendarsController {
  constructor(private readonly calendars: CalendarsService) {}

  @Get()
  @ApiOkResponse({ type: [CalendarView] })
  list(@TenantId() tenantId: string): Promise<CalendarView[]> {
    return this.calendars.list(tenantId);
  }

  @Post()
  @Audited('calendar.create')
  @ApiOperation({ summary: 'Create an exclusion calendar (dates on which its tasks do not fire)' })
  @ApiCreatedResponse({ type: CalendarView })
  create(@TenantId() tenantId: string, @Body() body: CalendarBodyDto): Promise<CalendarView> {
    return this.calendars.create(tenantId, body);
  }

  @Get(':id')
  @ApiOkResponse({ type: CalendarView })
  get(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<CalendarView> {
    return this.calendars.get(tenantId, id);
  }

  @Put(':id')
  @Audited('calendar.replace')
  @ApiOperation({ summary: 'Replace a calendar; next fire times of its tasks are recomputed' })
  @ApiOkResponse({ type: CalendarView })
  replace(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Body() body: CalendarBodyDto): Promise<CalendarView> {
    return this.calendars.update(tenantId, id, body, false);
  }

  @Audited('calendar.update')
  @Patch(':id')
  @ApiOkResponse({ type: CalendarView })
  patch(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number, @Body() body: CalendarPatchDto): Promise<CalendarView> {
    return this.calendars.update(tenantId, id, body, true);
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('calendar.delete')
  @ApiOperation({ summary: 'Delete a calendar no task uses (409 otherwise)' })
  @ApiNoContentResponse()
  delete(@TenantId() tenantId: string, @Param('id', new IdPipe()) id: number): Promise<void> {
    return this.calendars.delete(tenantId, id);
  }
}
