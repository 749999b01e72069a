export * from './database.module';
export * from './transaction';
