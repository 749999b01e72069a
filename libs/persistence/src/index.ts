export * from './entities';
export * from './data-source';
export * from './errors';
export * from './runs/transition-run';
export * from './nest';
export * from './batching';
export * from './mappers';
export * from './engine-queries';
