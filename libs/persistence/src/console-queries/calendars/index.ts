export * from './find-calendars';
export * from './write-calendars';
export * from './find-calendars-by-name';
