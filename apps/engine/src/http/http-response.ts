/** The few Express response members the engine's controllers and its exception filter touch (no @types/express in the project). */
export interface HttpResponse {
  headersSent: boolean;
  status(code: number): HttpResponse;
  setHeader(name: string, value: string): void;
  json(body: unknown): HttpResponse;
}
