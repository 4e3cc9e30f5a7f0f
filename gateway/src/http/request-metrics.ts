import type http from 'node:http';
import type { Request } from 'express';
import { metrics } from '../metrics.js';

/**
 * Counts an answered request under its route's pattern (`/v1/contacts/:id`), never its path: ids would make a
 * label per contact. A request no route took (a 404, a static file of the console) counts as `unmatched`.
 */
export function observeRequest(req: http.IncomingMessage, res: http.ServerResponse, startedAt: number): void {
  const { route, baseUrl } = req as Partial<Request>;
  const pattern = typeof route?.path === 'string' ? `${baseUrl ?? ''}${route.path}` : 'unmatched';
  const method = req.method ?? 'GET';
  metrics.requests.inc({ method, route: pattern, status: String(res.statusCode) });
  metrics.requestSeconds.observe({ method, route: pattern }, (performance.now() - startedAt) / 1000);
}
