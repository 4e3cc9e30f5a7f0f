import { ChannelError } from '../../engine/ports/channel-provider.js';
import { redact } from '../../domain/mask.js';

/**
 * One POST to a provider's API, as every channel provider makes it: no retry (the job queue retries on its own
 * schedule), no redirect (a redirect would carry the credentials somewhere the owner never configured), and the
 * answer read as JSON when it is an object. An unreachable API is a retryable ChannelError that never shows `secret`.
 */
export async function postToProvider(
  provider: string,
  endpoint: string,
  body: { form: Record<string, string> } | { json: unknown },
  options: { authorization: string; timeoutMs: number; secret: string },
): Promise<{ status: number; answer: Record<string, unknown> | undefined }> {
  const { got } = await import('got');
  let response;
  try {
    response = await got.post(endpoint, {
      ...body,
      headers: { authorization: options.authorization },
      timeout: { request: options.timeoutMs },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      responseType: 'text',
    });
  } catch (err) {
    throw new ChannelError(redact(`${provider} could not be reached: ${(err as Error).message}`, options.secret), true);
  }
  return { status: response.statusCode, answer: jsonObject(response.body) };
}

/** The answer as a JSON object, or undefined when it is not one. */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
