export * from './find-calendars';
