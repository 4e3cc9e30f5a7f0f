import { answersOnly } from '../../../../api-contract.js';
import type { Message } from '../../answers.js';

/** Only web addresses become links: a `javascript:` or `data:` address from a contact stays text. */
const webAddress = (url: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
};

/** What Meta says an attachment is ("image/*"), in a word. */
const kindOf = (contentType: string) => {
  const kind = /^(image|video|audio)\//.exec(contentType)?.[1];
  return kind ?? 'attachment';
};

/**
 * A message's media. A file the gateway keeps (/v1/media/{id}) is shown when it is an image, else offered as a
 * download; a file elsewhere is only linked, never loaded by the console (the page allows images from itself alone).
 * Messenger and Instagram attachments stay on Meta's servers: a link that opens them there, in a new tab.
 */
export function MediaPreview(props: { media: NonNullable<Message['media']>; channel?: string | null }) {
  const { url, contentType, mediaId } = props.media;
  if (mediaId) {
    if (contentType.startsWith('image/')) {
      return (
        <a href={url} class="inbox-media">
          <img src={url} alt={`Image sent by the contact (${contentType})`} />
        </a>
      );
    }
    return (
      <p class="inbox-media">
        <a href={url} download>
          Download the attached file ({contentType})
        </a>
      </p>
    );
  }
  if (!webAddress(url))
    return (
      <p class="inbox-media">
        Attached file ({contentType}) at <span class="value">{url}</span>
      </p>
    );
  if (answersOnly(props.channel ?? null)) {
    return (
      <p class="inbox-media">
        <a href={url} target="_blank" rel="noopener noreferrer">
          Open the {kindOf(contentType)} on Meta’s site (new tab)
        </a>
      </p>
    );
  }
  return (
    <p class="inbox-media">
      <a href={url} target="_blank" rel="noopener noreferrer">
        Open the attached file ({contentType}) on its site
      </a>
    </p>
  );
}
