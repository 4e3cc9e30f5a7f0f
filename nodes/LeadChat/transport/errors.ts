import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

/** What the API said went wrong: the text of `{error:{code,message}}`, of `{error:"..."}` (spec §7) or a fallback. */
export interface ApiFailure {
  message: string;
  code?: string;
  /** The codes of the problems a 400 lists per field (`error.fields`), the first one's being `code`. */
  fieldCodes?: string[];
}

function fieldCodesOf(error: { fields?: unknown }): string[] | undefined {
  if (!Array.isArray(error.fields)) return undefined;
  const codes = error.fields
    .map((field) => (field && typeof field === 'object' ? (field as { code?: unknown }).code : undefined))
    .filter((code): code is string => typeof code === 'string');
  return codes.length ? codes : undefined;
}

export function readApiFailure(status: number, body: unknown): ApiFailure {
  if (body && typeof body === 'object') {
    const { error, message } = body as { error?: unknown; message?: unknown };
    if (typeof error === 'string' && error.trim()) return { message: error };
    if (error && typeof error === 'object') {
      const nested = error as { code?: unknown; message?: unknown; fields?: unknown };
      const code = typeof nested.code === 'string' ? nested.code : undefined;
      const fieldCodes = fieldCodesOf(nested);
      const extra = fieldCodes ? { fieldCodes } : {};
      if (typeof nested.message === 'string' && nested.message.trim())
        return { message: nested.message, code, ...extra };
      if (code) return { message: code, code, ...extra };
    }
    if (typeof message === 'string' && message.trim()) return { message };
  }
  if (typeof body === 'string' && body.trim()) return { message: body.trim().slice(0, 300) };
  return { message: `The server answered HTTP ${status}` };
}

/**
 * Whether a 404 is the server saying it has no such route (the gateway's `No route GET /contacts`: a Base URL
 * without /v1), rather than no such record.
 */
export function isRouteMiss(failure: ApiFailure): boolean {
  return /^No route /.test(failure.message);
}

/**
 * Whether a 429 is the gateway refusing wrong API keys from n8n's address (`Too many failed authentications …`)
 * rather than a key over its rate: waiting does not make a wrong key right, so the item fails at once, saying so.
 */
export function isAuthThrottle(status: number, failure: ApiFailure): boolean {
  return status === 429 && /^Too many failed authentications\b/.test(failure.message);
}

/** Whether the body is an error in the API's shape, `{error:{…}}` or `{error:"…"}` (spec §7), not a web page. */
export function isApiErrorBody(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const { error } = body as { error?: unknown };
  return (typeof error === 'string' && error.trim() !== '') || (!!error && typeof error === 'object');
}

/** Replaces the API key, wherever it appears, so no message, description or log line ever shows it. */
export function redact(text: string, apiKey: string | undefined): string {
  let out = text.replace(/([?&]apiKey=)[^&#\s"']*/gi, '$1***');
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join('***');
  return out;
}

/** What to do about an error the API names by its code: only the codes a hint explains have one. */
const CODE_HINTS: Record<string, string> = {
  INVALID_PHONE:
    'Write the phone number in international format: a leading + and the country code, e.g. +14155550123. For national numbers, set "Default Country Code", or the account\'s default country (the console\'s Settings › Account).',
  INVALID_EMAIL: 'Check the email address.',
  NO_CONVERSATION:
    "A team member answers an existing conversation: one starts with a campaign's opening message or a message from the contact.",
  CONTACT_OPTED_OUT:
    'The contact opted out: nothing is sent to them until they write START. Filter opted-out contacts out before this node.',
  MEMBER_NOT_ACTIVE:
    'Only a team member who accepted the invitation takes conversations: ask them to open their invitation link and set a password, or pick an active member.',
  IDEMPOTENCY_KEY_REUSED:
    'This Idempotency Key was already used for another request (another grant, reply or campaign, to another sub-account or contact, or with other values). Use a new key for each new request; reuse it only to repeat the same one.',
  IDEMPOTENCY_IN_FLIGHT:
    "A request with the same Idempotency Key is still being processed. Retry in a moment: it will return that request's answer instead of doing it twice.",
  CAMPAIGN_NOT_LIVE: 'Make the campaign Live first, e.g. with Campaign > Update and Status Live.',
  CONTACT_EXISTS:
    'Another contact already has this phone or email (its ID is in the message): update or merge that contact instead, or give other values.',
  SAME_CONTACT: 'Pick two different contacts: the one to keep and its duplicate.',
  MERGE_TOO_LARGE:
    'Together the two contacts hold more custom fields or external IDs than a contact may (50 and 20; the message says how many): remove those not needed from either contact with Contact > Update, then merge again.',
  EXTERNAL_ID_TAKEN: 'Another contact already has this external ID: give another, or update that contact instead.',
  NO_RECEIVER:
    'Nothing receives messages on the custom channel: set the Custom Channel Webhook in the settings (or subscribe a webhook), then retry the message.',
  INSUFFICIENT_CREDITS: 'The account is out of credits: add credits, then retry the failed messages.',
  MESSAGE_NOT_FAILED:
    'Only a failed outgoing message can be sent again: this one is on its way or went (Message > Get shows its status).',
  NO_FIRST_MESSAGE:
    'Messenger and Instagram let a business answer, never write first: leave Opening Message and Opening Template empty for a campaign on these channels. It answers the contacts who write to your Page or Instagram account.',
  CAMPAIGN_CANNOT_SEND:
    'Give the campaign what the message names, or create it as Draft and make it Live once it can send.',
  NOT_AGENCY:
    'Sub-accounts and granting credits to them need the API key of an agency account; the key in this credential belongs to another kind of account.',
  STORE_UNAVAILABLE:
    'The gateway cannot reach its store for a moment (its database or the gateway restarting): nothing was changed. Run the item again in a moment, or allow more retries in the node options.',
  COMMIT_OUTCOME_UNKNOWN:
    'The gateway lost its store while saving the change: it may or may not have been made. Check before running the item again (a Get or Get Many operation shows it). Where the operation takes an Idempotency Key, give one: the node then sends the change again by itself, and it is made once.',
  STORE_DAMAGED:
    "A file of the gateway's store is damaged: its operator must restore it from a backup before this works again.",
};

export function hintForCode(code: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(CODE_HINTS, code) ? CODE_HINTS[code] : undefined;
}

/** The one request that embeds a file is Message › Receive's; what else is too large is its text or fields. */
const EMBEDS_FILES = 'POST /incoming_custom_channel_message';

function tooLargeHint(endpoint: string): string {
  return endpoint === EMBEDS_FILES
    ? 'The request is too large. For big files, send a hosted Media URL instead of embedding the file.'
    : 'The request is too large. Shorten the text or the fields sent.';
}

/**
 * A hint a builder can act on: the one of the API's error code, else the one of the status. A 409 or 422 is
 * explained only by its code, except from the credit grant of a server that names none: its Idempotency Key is the
 * one reason the grant answers them.
 */
function hintFor(status: number, failure: ApiFailure, endpoint: string): string | undefined {
  const byCode =
    (failure.code && hintForCode(failure.code)) ||
    failure.fieldCodes?.map(hintForCode).find((hint) => hint !== undefined);
  if (byCode) return byCode;
  if (!failure.code && endpoint === 'POST /subaccounts/credits') {
    if (status === 422) return CODE_HINTS.IDEMPOTENCY_KEY_REUSED;
    if (status === 409) return CODE_HINTS.IDEMPOTENCY_IN_FLIGHT;
  }
  switch (status) {
    case 400:
      return 'Fix the field named in the message and run the node again.';
    case 401:
      return "Check the API Key of the LeadChat API credential: the key as it was shown, once, when made (Settings > Account > API Key > Generate, or the gateway operator's leadchat-gateway account create or account rotate-key). Generating a new key invalidates the old one.";
    case 403:
      return 'The API key is valid but not allowed to do this.';
    case 404:
      return isRouteMiss(failure)
        ? 'The server has no such endpoint. Check that the Base URL of the credential ends with /v1.'
        : `Nothing matched at ${endpoint}: check the IDs and addresses given.`;
    case 405:
      return 'The server does not accept this method on this endpoint.';
    case 413:
      return tooLargeHint(endpoint);
    case 429:
      if (isAuthThrottle(status, failure))
        return "Requests from n8n's address gave wrong API keys too many times, so the server refuses them for a while (the message says how long). Check the API Key of the LeadChat API credential, and of every LeadChat credential on this n8n: a key generated anew invalidates the old one.";
      return 'The API key is over its rate limit. Lower "Items per Batch" or raise "Batch Interval" in the node options, or allow more retries.';
    default:
      return status >= 500 ? 'The server could not process the request. Retry after a short time.' : undefined;
  }
}

export interface ApiErrorInput {
  status: number;
  body: unknown;
  method: string;
  path: string;
  itemIndex?: number;
  apiKey?: string;
  /** Replaces the generic 404 hint: what to check for this operation. */
  notFoundHint?: string;
  /** Retries made before the budget for a 429 or a refusal for want of the store ran out. */
  retries?: number;
  /** Seconds the server asked to wait before the next request (Retry-After, or the RateLimit header's reset). */
  retryAfter?: number;
}

/** When the server says the next request may go, in words a builder can schedule by: `30 s`, `about 60 min`. */
function waitWords(seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  return whole < 120 ? `${whole} s` : `about ${Math.ceil(whole / 60)} min`;
}

/** Maps an HTTP error answer to the error n8n shows, carrying the API's own words and what to fix. */
export function leadChatApiError(node: INode, input: ApiErrorInput): NodeApiError {
  const failure = readApiFailure(input.status, input.body);
  const endpoint = `${input.method} ${input.path}`;
  const message = redact(failure.message, input.apiKey);
  const retried =
    input.retries !== undefined
      ? `Gave up after ${input.retries} ${input.retries === 1 ? 'retry' : 'retries'}.`
      : undefined;
  const specific = input.status === 404 && !isRouteMiss(failure) ? input.notFoundHint : undefined;
  // A rate limit or an outage that names its end says when running the item again can succeed.
  const when =
    input.retryAfter !== undefined && (input.status === 429 || input.status === 503)
      ? `The server asks to wait ${waitWords(input.retryAfter)} before the next request.`
      : undefined;
  const hint = [retried, when, specific ?? hintFor(input.status, failure, endpoint)].filter(Boolean).join(' ');
  const response: JsonObject = {
    httpCode: String(input.status),
    message,
    endpoint,
    ...(failure.code ? { code: failure.code } : {}),
  };
  const error = new NodeApiError(node, response, {
    message: `LeadChat: ${message}`,
    description: redact(
      `HTTP ${input.status}${failure.code ? ` ${failure.code}` : ''} from ${endpoint}.${hint ? ` ${hint}` : ''}`,
      input.apiKey,
    ),
    httpCode: String(input.status),
    itemIndex: input.itemIndex,
  });
  // For the error item of Continue On Fail: a workflow branches on the API's code, not on the words around it.
  if (failure.code) error.context.errorCode = failure.code;
  return error;
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * A request that got no HTTP answer: connection refused, DNS, TLS. The original error is dropped on purpose:
 * it carries the request configuration, whose URL may hold the API key.
 */
export function leadChatNetworkError(
  node: INode,
  error: unknown,
  input: { method: string; path: string; baseUrl: string; itemIndex?: number; apiKey?: string },
): NodeApiError {
  const source = (error ?? {}) as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = String(source.cause?.code ?? source.code ?? '') || undefined;
  const detail = String(source.cause?.message ?? source.message ?? 'no answer');
  const base = redact(input.baseUrl, input.apiKey);
  const hint =
    code && TLS_CODES.has(code)
      ? 'The server certificate could not be verified. A gateway using its self-signed certificate needs "Ignore SSL Issues" turned on in the credential.'
      : code === 'EPROTO' || /wrong version number/i.test(detail)
        ? 'The server did not answer over HTTPS. Check the scheme and port of the Base URL.'
        : 'Check the Base URL of the credential and that the server is running and reachable from n8n.';
  // Neither the code nor the raw detail goes into the message: n8n would swap a message naming ECONNREFUSED & co.
  // for its generic text, and the hint below is more useful.
  const response: JsonObject = { message: redact(detail, input.apiKey), ...(code ? { networkError: code } : {}) };
  return new NodeApiError(node, response, {
    message: `LeadChat: could not reach ${base}`,
    description: `${input.method} ${input.path} got no answer (${code ? `${code}: ` : ''}${redact(detail, input.apiKey)}). ${hint}`,
    itemIndex: input.itemIndex,
  });
}
