import { parse as parseQueryString } from 'node:querystring';
import { badRequest } from '../errors.js';

/**
 * The app's query parser. Every query parameter of the API takes one plain value, so one given twice
 * (`?limit=1&limit=2`) or in the bracket forms other parsers turn into arrays and objects (`limit[]=1`,
 * `status[x]=open`) is refused, naming it, rather than read as a parameter nobody asked for and ignored.
 */
export function strictQuery(text: string | null | undefined): Record<string, string> {
  if (!text) return {};
  const query = parseQueryString(text);
  for (const key in query) {
    const bracket = key.indexOf('[');
    if (bracket >= 0 || typeof query[key] !== 'string') {
      throw badRequest(
        `${bracket > 0 ? key.slice(0, bracket) : key}: give this query parameter once, as a single value`,
      );
    }
  }
  return query as Record<string, string>;
}
