export * from './insert-run-approvals';
export * from './find-due-approvals';
export * from './decide-run-approval';
export * from './settle-run-approval';
export * from './release-approved-run';
export * from './find-run-approval';
export * from './reject-waiting-run';
