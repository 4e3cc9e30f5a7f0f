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
  /** The error's message when the API answers 404 about the record, naming it (the API's words name no ID). */
  notFoundMessage?: string;
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

/** An answer's bytes as they came, with its status and headers: a file the API serves. */
export interface LeadChatFileResponse {
  statusCode: number;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

function asBuffer(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === 'string') return Buffer.from(body);
  return Buffer.alloc(0);
}

/** A failure's body read as bytes, as JSON when it is (the API's `{error:{…}}`), else as its text. */
function failureOf(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Every call to the API goes through here. The credential places the key (header or query, per endpoint); this
 * function adds the base URL and TLS setting, waits and retries on 429 and on a refusal for want of the gateway's
 * store (see ./storeRefusal), within one budget, and turns every failure into an error that names the API's own
 * message and never the key.
 */
export async function leadChatRequest(this: LeadChatContext, request: LeadChatRequest): Promise<LeadChatResponse> {
  const response = await exchange(this, request, false);
  return { statusCode: response.statusCode, body: asObject(response.body), headers: response.headers ?? {} };
}

/**
 * A request whose answer is a file (`GET /media/{id}`): its bytes, untouched, and its headers. Authentication,
 * retries and errors are those of `leadChatRequest`; a failure's JSON body is read for its words as there.
 */
export async function leadChatFileRequest(
  this: LeadChatContext,
  request: LeadChatRequest,
): Promise<LeadChatFileResponse> {
  const response = await exchange(this, request, true);
  return { statusCode: response.statusCode, body: asBuffer(response.body), headers: response.headers ?? {} };
}

async function exchange(context: LeadChatContext, request: LeadChatRequest, file: boolean): Promise<FullResponse> {
  const credentials = (await context.getCredentials(CREDENTIAL_TYPE)) as LeadChatCredentials;
  const baseUrl = String(credentials.baseUrl ?? '')
    .trim()
    .replace(/\/+$/, '');
  const apiKey = String(credentials.apiKey ?? '').trim() || undefined;
  const policy = request.retry ?? DEFAULT_RETRY_POLICY;
  const node = context.getNode();

  const options: IHttpRequestOptions = {
    method: request.method,
    url: `${baseUrl}${request.path}`,
    qs: request.qs,
    body: request.body,
    headers: { Accept: file ? '*/*' : 'application/json', ...(request.headers ?? {}) },
    ...(file ? { json: false, encoding: 'arraybuffer' as const } : { json: true }),
    returnFullResponse: true,
    ignoreHttpStatusErrors: true,
    skipSslCertificateValidation: credentials.ignoreSslIssues === true,
  };

  for (let attempt = 0; ; attempt++) {
    let response: FullResponse;
    try {
      response = (await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, {
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
    if (statusCode >= 200 && statusCode < 300) return response;
    if (file) response = { ...response, body: failureOf(asBuffer(response.body)) };
    if (request.accept?.includes(statusCode) || isNotFound(request, response)) return response;

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

    const error = leadChatApiError(node, {
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
    if (statusCode === 404 && request.notFoundMessage && !isRouteMiss(failure)) {
      error.message = `LeadChat: ${request.notFoundMessage}`;
    }
    throw error;
  }
}
