import type { Conversation } from '../../answers.js';
import { channelName } from './labels.js';

/** Meta's two platforms get a small mark: a speech bubble for Messenger, a camera outline for Instagram. */
function MetaMark(props: { channel: 'messenger' | 'instagram' }) {
  return (
    <svg class="inbox-channel-mark" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      {props.channel === 'messenger' ? (
        <>
          <path
            fill="currentColor"
            d="M8 1.2C4.1 1.2 1 4.1 1 7.7c0 2 1 3.8 2.6 5V15l2.3-1.3c.7.2 1.4.3 2.1.3 3.9 0 7-2.9 7-6.4S11.9 1.2 8 1.2z"
          />
          <path fill="#fff" d="M3.9 9.6 6.6 6.7l1.6 1.6 2.9-1.6-2.7 2.9-1.6-1.6z" />
        </>
      ) : (
        <>
          <rect
            x="1.6"
            y="1.6"
            width="12.8"
            height="12.8"
            rx="3.6"
            fill="none"
            stroke="currentColor"
            stroke-width="1.6"
          />
          <circle cx="8" cy="8" r="3" fill="none" stroke="currentColor" stroke-width="1.6" />
          <circle cx="11.7" cy="4.3" r="1" fill="currentColor" />
        </>
      )}
    </svg>
  );
}

/**
 * A conversation's channel by its name. Messenger and Instagram show as a badge with their mark; the mark is
 * hidden from screen readers, which read the name beside it.
 */
export function ChannelName(props: { conversation: Pick<Conversation, 'channel' | 'customChannel'> }) {
  const { channel } = props.conversation;
  const name = channelName(props.conversation);
  if (channel !== 'messenger' && channel !== 'instagram') return <span class="inbox-channel">{name}</span>;
  return (
    <span class={`inbox-channel inbox-badge inbox-channel-${channel}`}>
      <MetaMark channel={channel} />
      {name}
    </span>
  );
}
