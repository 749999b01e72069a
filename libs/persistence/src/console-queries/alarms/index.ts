export * from './count-open-alarms';
