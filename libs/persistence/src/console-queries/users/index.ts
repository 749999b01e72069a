export * from './find-users';
export * from './write-users';
