import { once } from 'node:events';
import type { Response } from 'express';
import type { Gateway } from '../context.js';
import type { List } from '../domain/lists.js';
import { attachment, listCsv } from '../domain/list-export.js';

/** Resolves once the answer takes more again, or once the client is gone (then nothing more is written). */
async function drained(res: Response): Promise<void> {
  const ac = new AbortController();
  await Promise.race([once(res, 'drain', { signal: ac.signal }), once(res, 'close', { signal: ac.signal })]).catch(
    () => undefined,
  );
  ac.abort();
}

/**
 * GET /v1/lists/{id}/export: the list's contacts as a CSV file, written as each page is read, so the download starts
 * at once and a list of 100,000 contacts is never held whole. A client that goes away stops the reading at the next
 * page. A failure once the file has started cannot be told as an error answer: the connection is cut, so that the
 * client sees a broken download rather than a file that looks whole.
 */
export async function sendListCsv(gw: Gateway, res: Response, list: List): Promise<void> {
  await gw.store.durable();
  res.status(200).set({
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': attachment(list.name),
    'Cache-Control': 'no-store',
  });
  const gone = () => res.destroyed;
  let chunks = 0;
  try {
    for await (const chunk of listCsv(gw.store, list, gone)) {
      if (gone()) break;
      chunks += 1;
      if (!res.write(chunk)) await drained(res);
    }
  } catch (err) {
    if (!res.headersSent) throw err;
    gw.log.error({ err, listId: list.id }, 'list export failed after it started; the download was cut');
    res.destroy();
    return;
  }
  if (gone()) gw.log.info({ listId: list.id, chunks }, 'list export stopped: the client went away');
  else res.end();
}
