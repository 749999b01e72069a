export * from './cancel-run';
export * from './cancel-task-runs';
export * from './insert-manual-run';
export * from './cancel-backfill-runs';
