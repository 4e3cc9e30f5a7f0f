import type {
  IAuthenticateRuleResponseCode,
  IAuthenticateRuleResponseSuccessBody,
  ICredentialDataDecryptedObject,
  ICredentialTestRequest,
  ICredentialType,
  IHttpRequestOptions,
  Icon,
  INodeProperties,
} from 'n8n-workflow';

import { endpointPath, keyPlacementFor } from '../nodes/LeadChat/transport/keyPlacement';

/** A phone number without a digit: the API refuses it with 400 INVALID_PHONE, after it accepted the key. */
const PROBE_PHONE = 'credential-check';

/**
 * The probe's address: the Base URL read as the node reads it (trimmed, without trailing slashes) with /contacts
 * after its path. A query string in the Base URL breaks every request of the node (its paths land inside the query
 * string), so the probe must fail it, saying so: its parameters go after /contacts, twice, and the gateway refuses a
 * parameter given twice before it reads the key (400 VALIDATION_ERROR naming it). Joined as `baseURL + url`, the
 * probe put /contacts inside the query string too, and got a 404 that blamed the missing /v1.
 */
const PROBE_URL =
  "={{ String($credentials.baseUrl).trim().replace(/^([^?#]*?)\\/*(?=[?#]|$)/, '$1/contacts').replace(/\\?([^#]+)/, '?$1&$1') }}";

/** The gateway's refusal of an API key given in the Base URL's query string besides the credential's own. */
const KEY_IN_URL = 'apiKey: give this query parameter once, as a single value';

const NOT_LEADCHAT =
  'The server at this Base URL answered, but not as the LeadChat API. It is the address of the API including the /v1 version segment, e.g. https://localhost:8443/v1.';

const KEY_OF_ITS_OWN =
  'The Base URL carries an API key of its own (?apiKey=…): remove it; the key goes in the API Key field.';

/** The 400s the gateway answers before it reads the key, each with what to fix in the credential. */
const BEFORE_THE_KEY: Array<[string, string]> = [
  ['HTTPS_REQUIRED', 'The gateway takes HTTPS only: start the Base URL with https://, e.g. https://localhost:8443/v1.'],
  [
    'MALFORMED_PATH',
    'The Base URL holds a broken %-escape: write its path as plain text, e.g. https://localhost:8443/v1.',
  ],
  ['AMBIGUOUS_CREDENTIALS', KEY_OF_ITS_OWN],
  ['VALIDATION_ERROR', 'The Base URL carries a query string: remove it; it ends with the /v1 version segment.'],
];

export class LeadChatApi implements ICredentialType {
  name = 'leadChatApi';

  displayName = 'LeadChat API';

  icon: Icon = {
    light: 'file:../nodes/LeadChat/leadchat.svg',
    dark: 'file:../nodes/LeadChat/leadchat.dark.svg',
  };

  documentationUrl = 'https://github.com/leadchat/n8n-nodes-leadchat/blob/main/docs/n8n.md#credential';

  properties: INodeProperties[] = [
    {
      displayName: 'Base URL',
      name: 'baseUrl',
      type: 'string',
      default: 'https://localhost:8443/v1',
      placeholder: 'e.g. https://localhost:8443/v1',
      description: 'Address of the API including the /v1 version segment: your LeadChat gateway, or the hosted service',
      required: true,
    },
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      description:
        'Generated in the app under Settings > Account > API Key. Generating a new key invalidates the old one.',
      required: true,
    },
    {
      displayName: 'Ignore SSL Issues',
      name: 'ignoreSslIssues',
      type: 'boolean',
      default: false,
      description:
        'Whether to connect even if the certificate cannot be verified, e.g. the self-signed certificate a gateway generates on first start',
    },
    {
      displayName: 'Webhook Signing Secret',
      name: 'webhookSecret',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      placeholder: 'e.g. whsec_…',
      description:
        'Only for a LeadChat Trigger registered by hand: the whsec_ secret shown with the Custom Channel Webhook settings. Leave empty for triggers that register themselves.',
    },
  ];

  authenticate = async (
    credentials: ICredentialDataDecryptedObject,
    requestOptions: IHttpRequestOptions,
  ): Promise<IHttpRequestOptions> => {
    // A key copied from the app often brings a space or a line break along. HTTP drops it around a header's value,
    // not in a query string, so untrimmed it would pass on some endpoints and be refused (401) on the others.
    const apiKey = String(credentials.apiKey ?? '').trim();
    const path = endpointPath(requestOptions.url, String(credentials.baseUrl ?? ''));
    const placement = keyPlacementFor(requestOptions.method, path);
    if (placement === 'query') {
      return { ...requestOptions, qs: { ...(requestOptions.qs ?? {}), apiKey } };
    }
    const header = placement === 'header' ? { 'x-api-key': apiKey } : { Authorization: `Bearer ${apiKey}` };
    return { ...requestOptions, headers: { ...(requestOptions.headers ?? {}), ...header } };
  };

  /**
   * A lookup by a phone number no server can accept. Only the LeadChat API answers it, to a key it accepts, with 400
   * and its own code, INVALID_PHONE (spec §7): that answer is the one success, so the probe proves the address as
   * well as the key, and works unchanged against the hosted service and the gateway. Every other answer fails with
   * what it means: 401/403 the key, 404 an address without /v1 or of another server (the gateway answers
   * "No route" there), 429 an address over its rate limit, and any other answer (a web page, a 200 of another
   * API) a server that is not the LeadChat API.
   */
  test: ICredentialTestRequest = {
    request: {
      url: PROBE_URL,
      method: 'GET',
      qs: { phoneNumber: PROBE_PHONE },
      skipSslCertificateValidation: '={{$credentials.ignoreSslIssues}}',
      ignoreHttpStatusErrors: { ignore: true, except: [401, 403, 404, 405, 429, 500, 502, 503, 504] },
    },
    // n8n's tester checks each rule by its type; the declaration only types an array of one kind or the other.
    rules: [
      {
        type: 'responseCode',
        properties: {
          value: 401,
          message:
            "The API key was rejected (401). Enter the key as it was shown when made, once: by Settings > Account > API Key > Generate, or on a self-hosted gateway by its operator's leadchat-gateway account create or account rotate-key. Generating a new key invalidates the old one.",
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 403,
          message: 'The API key is not allowed to use this API (403). Check that it belongs to the right account.',
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 404,
          message:
            'No LeadChat API answers at this Base URL (404). It is the address of the API including the /v1 version segment, e.g. https://localhost:8443/v1.',
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 405,
          message:
            'The server at this Base URL is not the LeadChat API (405). It is the address of the API including the /v1 version segment, e.g. https://localhost:8443/v1.',
        },
      },
      {
        type: 'responseCode',
        properties: {
          value: 429,
          message:
            'This address is over its rate limit (429), so the key could not be checked: too many requests, or too many wrong keys in a row (then for up to 10 minutes). Check the API Key, wait, and test again.',
        },
      },
      // What the gateway refuses before it reads a key is no proof of the key: each fails, saying what to fix.
      {
        type: 'responseSuccessBody',
        properties: { key: 'error.message', value: KEY_IN_URL, message: KEY_OF_ITS_OWN },
      },
      ...BEFORE_THE_KEY.map(([code, message]) => ({
        type: 'responseSuccessBody' as const,
        properties: { key: 'error.code', value: code, message },
      })),
      {
        type: 'responseSuccessBody',
        properties: {
          key: 'error.code',
          value: undefined,
          message: NOT_LEADCHAT,
        },
      },
    ] satisfies Array<
      IAuthenticateRuleResponseCode | IAuthenticateRuleResponseSuccessBody
    > as ICredentialTestRequest['rules'],
  };
}
