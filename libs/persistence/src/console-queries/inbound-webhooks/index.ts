export * from './delete-inbound-webhook';
export * from './find-inbound-webhook-by-public-id';
export * from './insert-inbound-webhook';
export * from './list-inbound-webhooks';
export * from './set-inbound-webhook-secret';
export * from './remember-inbound-signature';
