export * from './database.module';
export * from './transaction';
export * from './idle-allowance';
