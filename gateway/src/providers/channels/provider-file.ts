import type { TargetPolicy } from '../../config.js';
import { guard } from '../../outbound/guard.js';
import { redact } from '../../domain/mask.js';
import type { ProviderFile } from '../../engine/ports/channel-adapter.js';
import { jsonObject } from './provider-request.js';

/** How a contact's file is read: from the provider's API at `apiUrl`, within the operator's limits and policy. */
export interface MediaOptions {
  apiUrl: string;
  maxBytes: number;
  timeoutMs: number;
  targets: TargetPolicy;
}

export type { ProviderFile };

/**
 * Reads one provider-hosted file with the account's credentials: at most `maxBytes` (a larger one is given up as
 * soon as its size shows), within `timeoutMs`, without retries. Redirects are followed, since Twilio answers with
 * one to its file store; a redirect to another host drops the authorization header, so the credentials stay with
 * the provider. The address came with a tenant's message, so the target policy holds for it and every redirect,
 * unless it is on `trustedOrigin`, the provider's API the operator configured. A failure says why without showing
 * `secret`.
 */
export async function readProviderFile(
  url: string,
  options: {
    authorization: string;
    secret: string;
    maxBytes: number;
    timeoutMs: number;
    targets: TargetPolicy;
    trustedOrigin?: string;
  },
): Promise<ProviderFile> {
  const { got } = await import('got');
  const request = got(url, {
    headers: { authorization: options.authorization },
    timeout: { request: options.timeoutMs },
    retry: { limit: 0 },
    responseType: 'buffer',
    ...guard(options.targets, options.trustedOrigin),
  });
  request.on('downloadProgress', ({ transferred, total }) => {
    if (transferred > options.maxBytes || (total ?? 0) > options.maxBytes)
      request.cancel(`larger than ${options.maxBytes} bytes`);
  });
  try {
    const response = await request;
    const contentType =
      response.headers['content-type']?.split(';')[0]?.trim().toLowerCase() || 'application/octet-stream';
    return { bytes: response.body, contentType };
  } catch (err) {
    throw new Error(redact(`the file could not be read: ${(err as Error).message}`, options.secret));
  }
}

/** A JSON object read from a provider's API with the account's credentials; a failure when the answer is none. */
export async function readProviderJson(
  url: string,
  options: { authorization: string; secret: string; timeoutMs: number },
): Promise<Record<string, unknown>> {
  const { got } = await import('got');
  try {
    const text = await got(url, {
      headers: { authorization: options.authorization },
      timeout: { request: options.timeoutMs },
      retry: { limit: 0 },
      followRedirect: false,
    }).text();
    const answer = jsonObject(text);
    if (!answer) throw new Error('the answer is not a JSON object');
    return answer;
  } catch (err) {
    throw new Error(redact(`the file's address could not be read: ${(err as Error).message}`, options.secret));
  }
}
