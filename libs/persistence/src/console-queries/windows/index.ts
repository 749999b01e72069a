export * from './join-window-run';
export * from './open-window-run';
export * from './retire-window-name';
export * from './find-window-run';
export * from './lock-throttle-key';
export * from './store-throttle-period';
export * from './claim-submission-keys';
export * from './record-submission-key';
