import {
  sleep,
  type IDataObject,
  type IExecuteFunctions,
  type IHookFunctions,
  type IHttpRequestMethods,
  type IHttpRequestOptions,
  type ILoadOptionsFunctions,
} from 'n8n-workflow';

import {
  isApiErrorBody,
  isAuthThrottle,
  isRouteMiss,
  leadChatApiError,
  leadChatNetworkError,
  readApiFailure,
} from './errors';
import { DEFAULT_RETRY_POLICY, retryAfterSeconds, waitSeconds, type RetryPolicy } from './rateLimit';
import { isPassingStoreRefusal } from './storeRefusal';

export const CREDENTIAL_TYPE = 'leadChatApi';

export type LeadChatContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions;

export interface LeadChatRequest {
  method: IHttpRequestMethods;
  /** Path under the Base URL, e.g. `/contacts`. */
  path: string;
  qs?: IDataObject;
  body?: IDataObject;
  headers?: Record<string, string>;
  itemIndex?: number;
  /** Non-2xx statuses the caller handles itself, e.g. 404 on a lookup. */
  accept?: number[];
  retry?: RetryPolicy;
  /**
   * Whether sending the request again cannot make its change twice, so that it is sent again when the gateway
   * answers `503 COMMIT_OUTCOME_UNKNOWN` (the change may have been saved). Left out: reads, PUT and PATCH, and a
   * request with an Idempotency-Key are; say so for a change safe by nature (adding a contact to a list).
   */
  repeatable?: boolean;
  /**
   * The API's code for "no such record" (e.g. `CONTACT_NOT_FOUND`): a 404 naming it comes back to the caller, as
   * does one in the API's error shape from a server that names it otherwise (the spec gives no code). A 404 that is
   * no answer about the record fails: a route the server does not have (a Base URL without /v1), or a page of a
   * server that is not the API.
   */
  notFoundCode?: string;
  /** What to check when the API answers 404, e.g. which parameter to fix. */
  notFoundHint?: string;
}

export interface LeadChatResponse {
  statusCode: number;
  /** The JSON answer; an array comes wrapped as `{ data: [...] }`, an empty or non-JSON answer as `{}`. */
  body: IDataObject;
  headers: Record<string, string | string[] | undefined>;
}

function asObject(body: unknown): IDataObject {
  if (Array.isArray(body)) return { data: body };
  return body && typeof body === 'object' ? (body as IDataObject) : {};
}

/** Whether the answer is the API's 404 for the record the caller asked about (see `notFoundCode`). */
function isNotFound(request: LeadChatRequest, response: FullResponse): boolean {
  if (response.statusCode !== 404 || !request.notFoundCode) return false;
  const failure = readApiFailure(404, response.body);
  if (failure.code === request.notFoundCode) return true;
  return isApiErrorBody(response.body) && !isRouteMiss(failure);
}

interface LeadChatCredentials {
  baseUrl?: string;
  apiKey?: string;
  ignoreSslIssues?: boolean;
}

interface FullResponse {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string | string[] | undefined>;
}

/**
 * Every call to the API goes through here. The credential places the key (header or query, per endpoint); this
 * function adds the base URL and TLS setting, waits and retries on 429 and on a refusal for want of the gateway's
 * store (see ./storeRefusal), within one budget, and turns every failure into an error that names the API's own
 * message and never the key.
 */
export async function leadChatRequest(this: LeadChatContext, request: LeadChatRequest): Promise<LeadChatResponse> {
  const credentials = (await this.getCredentials(CREDENTIAL_TYPE)) as LeadChatCredentials;
  const baseUrl = String(credentials.baseUrl ?? '')
    .trim()
    .replace(/\/+$/, '');
  const apiKey = String(credentials.apiKey ?? '').trim() || undefined;
  const policy = request.retry ?? DEFAULT_RETRY_POLICY;
  const node = this.getNode();

  const options: IHttpRequestOptions = {
    method: request.method,
    url: `${baseUrl}${request.path}`,
    qs: request.qs,
    body: request.body,
    headers: { Accept: 'application/json', ...(request.headers ?? {}) },
    json: true,
    returnFullResponse: true,
    ignoreHttpStatusErrors: true,
    skipSslCertificateValidation: credentials.ignoreSslIssues === true,
  };

  for (let attempt = 0; ; attempt++) {
    let response: FullResponse;
    try {
      response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
        ...options,
        qs: options.qs ? { ...options.qs } : undefined,
      })) as FullResponse;
    } catch (error) {
      throw leadChatNetworkError(node, error, {
        method: request.method,
        path: request.path,
        baseUrl,
        itemIndex: request.itemIndex,
        apiKey,
      });
    }

    const { statusCode } = response;
    if (
      (statusCode >= 200 && statusCode < 300) ||
      request.accept?.includes(statusCode) ||
      isNotFound(request, response)
    ) {
      return { statusCode, body: asObject(response.body), headers: response.headers ?? {} };
    }

    const failure = readApiFailure(statusCode, response.body);
    const passing =
      (statusCode === 429 && !isAuthThrottle(statusCode, failure)) ||
      isPassingStoreRefusal(statusCode, failure, request);
    const retryAfter = retryAfterSeconds(response.headers, Date.now());
    if (passing && attempt < policy.maxRetries) {
      const seconds = waitSeconds(retryAfter, attempt, policy);
      await sleep(seconds * 1000);
      continue;
    }

    throw leadChatApiError(node, {
      status: statusCode,
      body: response.body,
      method: request.method,
      path: request.path,
      itemIndex: request.itemIndex,
      apiKey,
      notFoundHint: request.notFoundHint,
      // Retries are told of when the budget ran out, not when a retry met another answer (the record gone since).
      retries: passing ? attempt : undefined,
      retryAfter,
    });
  }
}
