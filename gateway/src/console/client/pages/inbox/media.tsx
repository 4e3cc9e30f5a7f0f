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
 * A message's media. A file the gateway keeps (/v1/media/{id}) is shown when it is an image, and played when it is a
 * voice note or a video (an agent hears what the lead said without saving the file), each with its download beside
 * it; another kept file is offered as a download. A file elsewhere is only linked, never loaded by the console (the
 * page allows images and media from itself alone). Messenger and Instagram attachments stay on Meta's servers: a link
 * that opens them there, in a new tab.
 */
export function MediaPreview(props: {
  media: NonNullable<Message['media']>;
  channel?: string | null;
  outgoing?: boolean;
}) {
  const { url, contentType, mediaId } = props.media;
  const sent = props.outgoing ? 'sent to the contact' : 'sent by the contact';
  if (mediaId) {
    const kind = kindOf(contentType);
    if (kind === 'image') {
      return (
        <a href={url} class="inbox-media">
          <img src={url} alt={`Image ${sent} (${contentType})`} />
        </a>
      );
    }
    // Named by the gateway's answer alone: `download` bare would be drawn as download="true", a name of its own.
    const download = (
      <a href={url} download="">
        Download the attached file ({contentType})
      </a>
    );
    if (kind === 'audio' || kind === 'video') {
      const label = `${kind === 'audio' ? 'Audio' : 'Video'} ${sent} (${contentType})`;
      // Metadata only until played: a thread of many voice notes reads each one's length, not all of their sound.
      const player =
        kind === 'audio' ? (
          <audio controls preload="metadata" src={url} aria-label={label} />
        ) : (
          <video controls preload="metadata" src={url} aria-label={label} />
        );
      return (
        <div class="inbox-media">
          {player}
          <p>{download}</p>
        </div>
      );
    }
    return <p class="inbox-media">{download}</p>;
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
