import type { Request, Response } from 'express';
import { etagOf } from '../api-contract.js';
import { ApiError, badRequest } from '../errors.js';

/**
 * RFC 9110's validators for a record that counts its versions (a campaign): each version answered as a strong ETag,
 * and If-Match read into the test a change must pass, so that a change made from a copy read earlier (another tab,
 * another workflow) is refused instead of undoing what was saved since.
 */

export const sendETag = (res: Response, version: number): void => void res.set('ETag', etagOf(version));

/** One element of If-Match's list (`[W/]"<etagc>*"`, etagc being %x21 / %x23-7E / obs-text), then a comma or the end. */
const ELEMENT = /[ \t]*(?:((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")[ \t]*)?(,|$)/y;

/** The entity tags of If-Match's list, empty elements left out; undefined when it is not such a list. */
function tagsOf(value: string): string[] | undefined {
  const tags: string[] = [];
  ELEMENT.lastIndex = 0;
  for (;;) {
    const match = ELEMENT.exec(value);
    if (!match) return undefined;
    if (match[1]) tags.push(match[1]);
    if (match[2] === '') return tags;
  }
}

/**
 * The request's If-Match as the check a change makes of the version it finds, in the transaction that changes it:
 * none without the header (the change goes through, as it always did). `*` holds for any version of a record that
 * exists; a list holds when one of its tags is the version's ETag by strong comparison, so a weak tag never does.
 * What is neither is a 400 before anything is read.
 */
export function ifMatchOf(req: Request, thing: string): ((version: number) => void) | undefined {
  const header = req.get('if-match');
  if (header === undefined) return undefined;
  if (header.trim() === '*') return () => undefined;
  const tags = tagsOf(header);
  if (!tags?.length)
    throw badRequest(
      'If-Match: must be * or the ETag of a version read before, in double quotes as it came ("3"), or a list of them separated by commas',
      'INVALID_IF_MATCH',
    );
  return (version) => {
    if (tags.includes(etagOf(version))) return;
    throw new ApiError(
      412,
      'PRECONDITION_FAILED',
      `The ${thing} changed since the version If-Match names: it is at ${etagOf(version)} now. Read it again and make the change on what it holds now`,
    );
  };
}
