import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { HookDeliveriesService } from './hook-deliveries.service';
import { HooksController } from './hooks.controller';
import { InboundWebhooksController } from './inbound-webhooks.controller';
import { InboundWebhooksService } from './inbound-webhooks.service';

/** A tenant's inbound webhooks (made by its admin) and their public receiving route, whose deliveries become events (EventsService). */
@Module({
  imports: [EventsModule],
  controllers: [InboundWebhooksController, HooksController],
  providers: [InboundWebhooksService, HookDeliveriesService],
})
export class InboundWebhooksModule {}
