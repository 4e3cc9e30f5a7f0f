import { z } from 'zod';
import { WEEKDAYS } from '../api-contract.js';

/**
 * What every answer is made of. The answers of /v1 are zod schemas (contract/*.ts): the routes' answers are typed
 * by them, the OpenAPI document is generated from them, and the console reads the types they give. A schema with an
 * `id` is a component of the document (`#/components/schemas/<id>`).
 */

export const timestamp = z.iso.datetime({ offset: true }).describe('An ISO 8601 time in UTC');
export const nullableTimestamp = timestamp.nullable();

/** One page of a list endpoint: `data`, and the cursor of the next page (null on the last). */
export const page = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    nextCursor: z
      .string()
      .nullable()
      .describe(
        'Pass as `cursor` for the next page of the same path and filters, with the same key; null on the last page',
      ),
  });

export const success = z.literal(true);

/** The type of an answer: what its schema gives. */
export type Answer<S extends z.ZodType> = z.output<S>;

/**
 * Local hours on days of the week, in a time zone: a campaign's sendingWindow, the team's businessHours. `days`
 * describes what the days are for.
 */
export const weeklyHours = (days: string) =>
  z.object({
    start: z.string(),
    end: z.string(),
    timezone: z.string(),
    days: z.array(z.enum(WEEKDAYS)).nullable().describe(days),
  });
