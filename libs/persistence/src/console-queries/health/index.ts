export * from './ping-database';
