import mimeTypes from 'mime-types';
import type { Gateway } from '../context.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import { StoreUnavailableError, type ByteSpan } from '../store/store.js';

export interface Media {
  id: string;
  accountId: string;
  contentType: string;
  size: number;
  createdAt: string;
}

const DATA_URI = /^data:([\w.+-]+\/[\w.+-]+)?((?:;[\w-]+=[^;,]*)*);base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Types a sniffer cannot recognise by signature: accepted when the bytes are plain text. */
const TEXTUAL = /^(text\/[\w.+-]+|application\/(json|xml|csv|x-ndjson)|image\/svg\+xml)$/;

/** URL schemes are case-insensitive: `DATA:` embeds a file as much as `data:` does. */
export const isDataUri = (url: string) => /^data:/i.test(url);

/**
 * Decodes an embedded `data:<mime>;base64,<data>` file (spec §2.4) and checks that its real content matches
 * the declared mediaContentType, by signature for binary types or as valid UTF-8 for textual ones.
 */
export async function decodeDataUri(
  uri: string,
  declared: string,
  maxBytes: number,
): Promise<{ bytes: Buffer; contentType: string }> {
  const head = DATA_URI.exec(uri.slice(0, 300));
  if (!head) throw badRequest('mediaUrl: a data URI must have the form data:<mime_type>;base64,<encoded_data>');
  const encoded = uri.slice(head[0].length).replace(/\s+/g, '');
  if (Math.floor((encoded.length * 3) / 4) - (encoded.match(/=*$/)?.[0].length ?? 0) > maxBytes) {
    throw new ApiError(
      413,
      'PAYLOAD_TOO_LARGE',
      `mediaUrl: embedded file exceeds ${maxBytes} bytes; send a hosted URL instead`,
    );
  }
  if (!encoded || encoded.length % 4 !== 0 || !BASE64.test(encoded))
    throw badRequest('mediaUrl: the embedded data is not valid base64');
  const bytes = Buffer.from(encoded, 'base64');
  const contentType = declared.trim().toLowerCase().split(';')[0]!.trim();
  // Loaded with the first embedded file rather than at start-up.
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(bytes);
  const matches = sniffed ? sameType(sniffed.mime, contentType) : TEXTUAL.test(contentType) && isUtf8Text(bytes);
  if (!matches) {
    throw badRequest(
      `mediaContentType: declared ${contentType} but the file content is ${sniffed?.mime ?? 'not recognised as that type'}`,
      'MEDIA_TYPE_MISMATCH',
    );
  }
  return { bytes, contentType: sniffed?.mime ?? contentType };
}

/**
 * The type a provider's file is kept and served under, told by its bytes: the type its provider (or the sender) names
 * may be a generic one (`application/octet-stream`) or not the file's at all. A file of no known signature keeps the
 * type named when its bytes fit it; text named as a binary type is plain text, so that a page or a script is never
 * served as an image, nor under a type a browser would run.
 */
async function typeOfContent(bytes: Buffer, named: string): Promise<string> {
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(bytes);
  if (sniffed) return sniffed.mime;
  const essence = named.split(';')[0]!.trim().toLowerCase();
  if (!isUtf8Text(bytes)) return TEXTUAL.test(essence) ? 'application/octet-stream' : essence;
  return TEXTUAL.test(essence) ? essence : 'text/plain';
}

/** "image" matches any image/*, and a few common aliases name the same type. */
function sameType(actual: string, declared: string): boolean {
  const alias: Record<string, string> = {
    'image/jpg': 'image/jpeg',
    'audio/mp3': 'audio/mpeg',
    'audio/x-wav': 'audio/wav',
  };
  const d = alias[declared] ?? declared;
  return d === actual || (!d.includes('/') && actual.startsWith(`${d}/`));
}

function isUtf8Text(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

/** How a message points at a file the gateway keeps: read at /v1/media/{id} with the account's key. */
export const keptMedia = (media: Media) => ({
  url: `/v1/media/${media.id}`,
  contentType: media.contentType,
  mediaId: media.id,
});

/** Stores the file durably before any record points at it; returns the record to insert. */
export async function saveMedia(gw: Gateway, accountId: string, bytes: Buffer, contentType: string): Promise<Media> {
  const media: Media = { id: newId('med'), accountId, contentType, size: bytes.length, createdAt: now() };
  await gw.store.blobs.put(accountId, media.id, bytes);
  return media;
}

/**
 * A provider-hosted file of a contact's message (Twilio, WhatsApp), copied into the gateway so that the account reads
 * it at /v1/media/{id} like an embedded one. A file that cannot be read leaves the provider's address on the message
 * and its reason in the log: a message is never lost over its attachment.
 */
export async function copyProviderFile(
  gw: Gateway,
  accountId: string,
  read: () => Promise<{ bytes: Buffer; contentType: string } | undefined>,
): Promise<Media | undefined> {
  try {
    const file = await read();
    return file && (await saveMedia(gw, accountId, file.bytes, await typeOfContent(file.bytes, file.contentType)));
  } catch (err) {
    gw.log.warn(
      { accountId, reason: (err as Error).message },
      'media: a provider file was not copied; the message keeps its address',
    );
    return undefined;
  }
}

/**
 * Stores a message whose file was saved before its transaction. When the message is not stored after all (a
 * duplicate, or a failed transaction), the file is removed again; after a failure, only once the store confirms
 * that no record points at it.
 */
export async function storingMedia<T extends { duplicate: boolean }>(
  gw: Gateway,
  media: Media | undefined,
  store: () => Promise<T>,
): Promise<T> {
  if (!media) return store();
  let result: T;
  try {
    result = await store();
  } catch (err) {
    const kept = await gw.store.get<Media>('media', media.id).catch(() => true);
    if (!kept) await gw.store.blobs.delete(media.accountId, media.id).catch(() => undefined);
    throw err;
  }
  if (result.duplicate) await gw.store.blobs.delete(media.accountId, media.id);
  return result;
}

/** Where the extension programs open by is not the registry's first (`.vcard`, `.oga`): a card, a voice note. */
const COMMON_EXTENSIONS: Record<string, string> = { 'text/vcard': 'vcf', 'audio/ogg': 'ogg' };

/**
 * Types a download is named for: a photo, a voice note, a video, a document, a sheet, a card, plain text, each opened
 * by the program of its kind, which shows it and runs nothing. The Content-Security-Policy a file is served with
 * stays behind in the browser: a web page or a drawing saved as `.html` or `.svg` and opened from the downloads
 * folder runs its scripts, and a `.exe`, `.js` or `.jar` runs as a program. A contact sends what they like.
 */
const OPENED_BY_KIND =
  /^(?:image\/(?!svg\+xml$)|audio\/|video\/|text\/(?:plain|csv|vcard|calendar)$|application\/(?:pdf|json|rtf|zip|msword|vnd\.ms-excel|vnd\.ms-powerpoint|vnd\.openxmlformats-officedocument\.[\w.]+|vnd\.oasis\.opendocument\.[\w.]+)$)/;
const TEXTUAL_TYPE = /^(?:text\/|application\/(?:xml|javascript|ecmascript|x-ndjson)$|[\w.+-]+\/[\w.+-]+\+xml$)/;

/**
 * The name a file is saved under when downloaded: its id, with its type's extension, so that the download opens
 * with the program of its kind (a PDF in a PDF reader) rather than as a file of no type named after the URL. A type
 * that would run when opened (OPENED_BY_KIND) is named `.txt` when it is text, so that it opens as its source, and
 * takes no extension otherwise.
 */
export function fileName(media: Pick<Media, 'id' | 'contentType'>): string {
  const type = media.contentType.split(';')[0]!.trim().toLowerCase();
  if (!OPENED_BY_KIND.test(type)) return TEXTUAL_TYPE.test(type) ? `${media.id}.txt` : media.id;
  const extension = COMMON_EXTENSIONS[type] ?? mimeTypes.extension(type);
  return extension ? `${media.id}.${extension}` : media.id;
}

/** The record of a file the account keeps: 404 for another account's or none. */
export async function mediaRecord(gw: Gateway, accountId: string, id: string): Promise<Media> {
  const media = await gw.store.get<Media>('media', id);
  if (!media || media.accountId !== accountId) throw notFound('Media');
  return media;
}

/** A kept file's bytes, or only those of `part`, a span within its recorded size. */
export async function readMedia(gw: Gateway, media: Media, part?: ByteSpan): Promise<Buffer> {
  let bytes: Buffer | undefined;
  try {
    bytes = await gw.store.blobs.get(media.accountId, media.id, part);
  } catch (err) {
    // The store away is its own answer (503, retry later); any other fault is this file's.
    if (err instanceof StoreUnavailableError) throw err;
    throw unreadable(gw, media, (err as Error).message);
  }
  if (!bytes) throw unreadable(gw, media, 'its file is missing from the store');
  // A file cut short behind the gateway's back would answer other bytes than its headers promise.
  if (bytes.length !== (part ? part.end - part.start + 1 : media.size)) {
    throw unreadable(gw, media, `its file no longer holds the ${media.size} bytes recorded`);
  }
  return bytes;
}

/**
 * A kept file its record points at, that cannot be read: removed from the disk or the database behind the gateway's
 * back, or a fault reading it. The operator learns which file and why from one error line (never its content); the
 * account, a 404 of the file it can do nothing more with but ask the operator, rather than a 500 to retry.
 */
function unreadable(gw: Gateway, media: Media, reason: string): ApiError {
  gw.log.error(
    { accountId: media.accountId, mediaId: media.id, reason },
    'media: a kept file cannot be read; its message points at nothing',
  );
  return notFound(
    'Media',
    "Media not found: its file can no longer be read by the gateway (its operator's log says why)",
  );
}
