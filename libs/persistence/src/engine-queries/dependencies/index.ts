export * from './lock-flow-root';
export * from './find-dependency-edges';
export * from './find-flow-outcomes';
export * from './insert-dependency-runs';
export * from './find-parent-results';
