export * from './find-users';
export * from './write-users';
export * from './user-preferences';
