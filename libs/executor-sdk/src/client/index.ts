/** Submitting work to Baton from a Node service: `@baton/executor-sdk/client`. */
export { BatonClient, type BatonClientOptions, type EmitEvent, type EmitResult, type EmittedEventView, type SubmitResult, type SubmitRun, type SubmittedRunView } from './baton-client';
export { BatonApiError, type FieldProblem } from './baton-api-error';
