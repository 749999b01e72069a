/**
 * The run being started is not this node's any more (taken over, or cancelled, meanwhile): thrown
 * inside the start's transaction to roll it back, REPLACE cancellations included.
 */
export class LostRunError extends Error {
  readonly code = 'LOST_RUN';
}
