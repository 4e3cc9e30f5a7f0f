import { utf8 } from '../../domain/storable-text.js';
import { badRequest } from '../../errors.js';
import type { WebhookEntries, WebhookRequest } from '../../engine/ports/channel-adapter.js';
import { verifyMetaSignature } from './meta-graph.js';

/** Whether a Meta webhook's X-Hub-Signature-256 is the HMAC of its bytes under the channel's app secret. */
export const verifyMetaRequest = async (appSecret: string, request: WebhookRequest): Promise<boolean> =>
  verifyMetaSignature(appSecret, request.body, request.header('x-hub-signature-256'));

/**
 * The entries of a signed Meta webhook, split by `split` from its JSON. A body that is not UTF-8 cannot be split
 * into its entries, since decoding it would hide which held the bytes: the whole of it is refused, and answered as
 * taken, or Meta would send it again until it gives up on the callback. A body that is not JSON is a 400.
 */
export function metaEntries(request: WebhookRequest, split: (json: unknown) => WebhookEntries): WebhookEntries {
  if (!utf8(request.body)) return { entries: [], refused: [{ where: 'body', fault: 'not_utf8' }] };
  let json: unknown;
  try {
    json = JSON.parse(request.body.toString('utf8'));
  } catch {
    throw badRequest('The body is not JSON');
  }
  return split(json);
}
