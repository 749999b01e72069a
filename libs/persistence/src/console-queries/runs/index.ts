export * from './cancel-backfill-runs';
export * from './cancel-run';
export * from './cancel-task-runs';
export * from './count-existing-fires';
export * from './insert-manual-run';
