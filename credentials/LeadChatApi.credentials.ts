import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { endpointPath, keyPlacementFor } from '../nodes/LeadChat/transport/keyPlacement';

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
			description:
				'Address of the API including the /v1 version segment: your LeadChat gateway, or the hosted service',
			required: true,
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Generated in the app under Settings > Account > API Key. Generating a new key invalidates the old one.',
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
		const apiKey = String(credentials.apiKey ?? '');
		const path = endpointPath(requestOptions.url, String(credentials.baseUrl ?? ''));
		const placement = keyPlacementFor(requestOptions.method, path);
		if (placement === 'query') {
			return { ...requestOptions, qs: { ...(requestOptions.qs ?? {}), apiKey } };
		}
		const header =
			placement === 'header' ? { 'x-api-key': apiKey } : { Authorization: `Bearer ${apiKey}` };
		return { ...requestOptions, headers: { ...(requestOptions.headers ?? {}), ...header } };
	};

	/**
	 * A lookup of an address no contact can have: 200 or 404 proves the key was accepted, 401 and 403 mean it was
	 * not. The declarative test expresses this on its own: `ignoreHttpStatusErrors` with `except` lets 404 through
	 * as a successful probe while 401/403 (and a failing server) still fail, 401/403 with the messages below. This works unchanged against
	 * the hosted service and the gateway, and needs no request helper of our own.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/contacts',
			method: 'GET',
			qs: { email: 'credential-check@invalid.invalid' },
			skipSslCertificateValidation: '={{$credentials.ignoreSslIssues}}',
			ignoreHttpStatusErrors: { ignore: true, except: [401, 403, 500, 502, 503, 504] },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key was rejected (401). Copy the current key from Settings > Account > API Key; generating a new key invalidates the old one.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'The API key is not allowed to use this API (403). Check that it belongs to the right account.',
				},
			},
		],
	};
}
