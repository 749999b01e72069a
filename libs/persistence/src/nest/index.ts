export * from './database.module';
export * from './transaction';
export * from './idle-allowance';
export { deferStatement, sendAhead } from '../engine-queries/riders';
