/** The few Express response members the engine's controllers touch (no @types/express in the project). */
export interface HttpResponse {
  status(code: number): HttpResponse;
  setHeader(name: string, value: string): void;
}
