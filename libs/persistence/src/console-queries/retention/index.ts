export * from './retention-policies';
