export * from './fair-shares';
