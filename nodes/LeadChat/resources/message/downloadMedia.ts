import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { forOperation } from '../../shared/display';
import { ItemWithFile, type RunSettings } from '../../shared/types';
import { CREDENTIAL_TYPE, leadChatFileRequest } from '../../transport/request';
import { textOf } from '../../shared/text';

export const description = forOperation('message', 'downloadMedia', [
  {
    displayName: 'Media URL or ID',
    name: 'media',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. /v1/media/med_V1StGXR8Z5jdHi6B',
    description:
      "The file's address as LeadChat gives it: the mediaUrl of the trigger's Message Received event, or the media URL of Message > Get; its Media ID (med_…) works too",
  },
  {
    displayName: 'Put Output File in Field',
    name: 'binaryPropertyName',
    type: 'string',
    default: 'data',
    required: true,
    hint: 'The name of the output binary field to put the file in',
  },
]);

const MEDIA_ID = /^med_[\w-]+$/;
/** The end of a file's address on the API: `/v1/media/med_…`, read with the account's key. */
const MEDIA_PATH = /\/media\/(med_[\w-]+)\/?$/;

/**
 * The Media ID named by what the builder gives: the ID itself, the address the API gives (`/v1/media/med_…`), or
 * that address made absolute on the credential's Base URL. The file is then read at `/media/{id}` under the Base
 * URL, never at the address given: an address on any other server is refused before any request, so the API key
 * goes nowhere else.
 */
function mediaIdOf(this: IExecuteFunctions, value: string, baseUrl: string, itemIndex: number): string {
  const node = this.getNode();
  const fail = (message: string, description: string) =>
    new NodeOperationError(node, message, { itemIndex, description });
  if (!value) {
    throw fail(
      'No file to download: Media URL or ID is empty',
      "The message carries no file (the trigger's mediaUrl and Message > Get's media are null for a text): keep only the messages with one, e.g. with an If node on {{ $json.mediaUrl }} being not empty.",
    );
  }
  if (MEDIA_ID.test(value)) return value;
  if (/^msg_/.test(value)) {
    throw fail(
      `${value} is a Message ID, not a file`,
      "Give the message's file: the mediaUrl of the trigger's Message Received event, or the media.url of Message > Get.",
    );
  }
  let path: string;
  if (value.startsWith('/') && !value.startsWith('//')) {
    path = value.split(/[?#]/)[0] ?? '';
  } else {
    let url: URL;
    let base: URL;
    try {
      url = new URL(value);
      base = new URL(baseUrl);
    } catch {
      throw fail(
        'Media URL or ID is neither a LeadChat file address nor a Media ID',
        'Give the mediaUrl of the trigger (/v1/media/med_…), the media.url of Message > Get, or a Media ID (med_…).',
      );
    }
    if (!/^https?:$/.test(url.protocol)) {
      throw fail(
        `The ${url.protocol.replace(/:$/, '')} file is not kept by LeadChat`,
        "LeadChat has only its provider's reference to this file: it could not make a copy of it when the message came (the gateway's log says why).",
      );
    }
    if (url.origin !== base.origin) {
      // Only the host is named: a provider's address may carry a token in its path or query.
      throw fail(
        `The file at ${url.host} is not kept by LeadChat`,
        `Only a file of the credential's Base URL (${base.origin}) is downloaded, with the API key. This address is another server's (a file the contact sent as a public link, or one of its provider that could not be copied): download it with an HTTP Request node, which sends no LeadChat key.`,
      );
    }
    path = url.pathname;
  }
  const id = MEDIA_PATH.exec(path)?.[1];
  if (!id) {
    throw fail(
      'Media URL or ID is not the address of a LeadChat file',
      'A LeadChat file is at /v1/media/med_…: give the mediaUrl of the trigger, the media.url of Message > Get, or a Media ID (med_…).',
    );
  }
  return id;
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const found = Object.keys(headers).find((key) => key.toLowerCase() === name);
  const value = found === undefined ? undefined : headers[found];
  return Array.isArray(value) ? value[0] : value;
}

/** The name the API gives the file (`Content-Disposition: attachment; filename=med_….pdf`), without any folder. */
function fileNameOf(disposition: string | undefined): string | undefined {
  if (!disposition) return undefined;
  let name: string | undefined;
  const extended = /filename\*\s*=\s*[\w-]+'[^']*'([^;\s]+)/i.exec(disposition);
  if (extended) {
    try {
      name = decodeURIComponent(extended[1]!);
    } catch {
      name = undefined;
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(disposition);
  name ??= plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
  const base = name?.split(/[\\/]/).pop()?.trim();
  return base || undefined;
}

/**
 * A contact's photo, voice note or document, as n8n binary data in the field named, for the next node to save or
 * read (Google Drive, an OCR). The JSON says what it is: `mediaId`, `contentType`, `fileName`, `size` in bytes.
 */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<ItemWithFile> {
  const credentials = await this.getCredentials(CREDENTIAL_TYPE);
  const baseUrl = String(credentials.baseUrl ?? '').trim();
  // The trigger's mediaUrl is null for a message with no file: an expression on it gives null, not ''.
  const value = textOf(this.getNodeParameter('media', itemIndex, '')).trim();
  const field = textOf(this.getNodeParameter('binaryPropertyName', itemIndex, 'data')).trim();
  if (!field) {
    throw new NodeOperationError(this.getNode(), 'Put Output File in Field is empty', { itemIndex });
  }
  const mediaId = mediaIdOf.call(this, value, baseUrl, itemIndex);

  const response = await leadChatFileRequest.call(this, {
    method: 'GET',
    path: `/media/${encodeURIComponent(mediaId)}`,
    itemIndex,
    retry: settings.retry,
    notFoundMessage: `File ${mediaId} not found`,
    notFoundHint: `No file ${mediaId} in this account: check the Media URL or ID. A file of another account, or of a contact erased since, is not found.`,
  });

  const contentType =
    headerOf(response.headers, 'content-type')?.split(';')[0]?.trim().toLowerCase() || 'application/octet-stream';
  const fileName = fileNameOf(headerOf(response.headers, 'content-disposition')) ?? mediaId;
  const binary = await this.helpers.prepareBinaryData(response.body, fileName, contentType);
  return new ItemWithFile({ mediaId, contentType, fileName, size: response.body.length }, { [field]: binary });
}
