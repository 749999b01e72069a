import { API_PREFIX } from '../common/access';

/**
 * Largest JSON body of a tasks-as-code file (POST /api/config/plan and /api/config/apply): 4 MB,
 * where every other route keeps the console's 1 MB (CONSOLE_JSON_LIMIT). Why larger: a scheduler
 * moving in is imported as one file (`baton import`), all of it applied or none, and 5,000 jobs
 * take about 2.5 MB. Why that is safe: the JSON parse of 4 MB holding one string costs the event
 * loop about 20–60 ms; the YAML inside is counted (yaml-budget) and parsed in the worker thread
 * (ConfigThread), never on the event loop.
 */
export const TASKS_AS_CODE_JSON_LIMIT = '4mb';

const FILE_ROUTES = new Set([`/${API_PREFIX}/config/plan`, `/${API_PREFIX}/config/apply`]);

/** A POST of a tasks-as-code file as JSON (the path without its query; the content type body-parser's json parser takes by default). */
export function isTasksAsCodeFile(request: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> }): boolean {
  const contentType = request.headers['content-type'];
  const json = typeof contentType === 'string' && /^application\/json\s*(?:;|$)/i.test(contentType);
  return json && request.method === 'POST' && FILE_ROUTES.has((request.url ?? '').split('?')[0]);
}
