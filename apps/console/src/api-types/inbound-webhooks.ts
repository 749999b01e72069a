/** A tenant's inbound webhook: deliveries to `path`, signed by `scheme`, become events named `event`. */
export interface InboundWebhook {
  id: number;
  name: string;
  event: string;
  scheme: 'GITHUB' | 'STRIPE';
  /** The path to give the third party after the console's address (`/api/hooks/ih_…`). */
  path: string;
  createdAt: number;
}

/** The answer that creates a hook or rotates its secret: the secret in clear, here only. */
export interface CreatedInboundWebhook extends InboundWebhook {
  secret: string;
}
