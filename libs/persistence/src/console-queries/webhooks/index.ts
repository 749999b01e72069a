export * from './webhook-channels';
