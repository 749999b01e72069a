export * from './cancel-run';
export * from './cancel-task-runs';
export * from './insert-manual-run';
export * from './cancel-backfill-runs';
export * from './lock-task-for-backfill';
export * from './mark-backfills-cancelled';
export * from './count-existing-fires';
export * from './revoke-owner-keys';
