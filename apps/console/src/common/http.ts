/**
 * The few Express request/response members the console touches (the project has no
 * @types/express; these keep the code typed without it).
 */
export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface HttpResponse {
  headersSent: boolean;
  status(code: number): HttpResponse;
  json(body: unknown): HttpResponse;
  type(type: string): HttpResponse;
  setHeader(name: string, value: string): void;
  send(body: string): void;
}
