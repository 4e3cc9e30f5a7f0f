/** The API's shapes the inbox reads: conversations (GET /v1/conversations) and messages (GET /v1/messages/{id}). */
export interface Contact {
  id: string;
  firstName: string;
  lastName: string;
  phone: string;
  email: string;
  fromId?: string;
  externalIds?: Record<string, string>;
  optOut?: { at: string; channel: string; keyword: string } | null;
}

export interface Conversation {
  id: string;
  contactId: string;
  channel: 'sms' | 'whatsapp' | 'messenger' | 'instagram' | 'custom';
  customChannel: string | null;
  campaignId: string | null;
  status: 'active' | 'handed_off' | 'opted_out' | 'closed';
  bot: { active: boolean };
  /** Its latest message; an outgoing one with who wrote it (absent on one stored before the gateway kept it). */
  lastMessage: {
    id: string;
    direction: 'incoming' | 'outgoing';
    body: string;
    status: string;
    createdAt: string;
    author?: Message['author'];
    authorName?: string | null;
  } | null;
  lastActivityAt: string;
  unread: number;
  /** An unread message from the contact, or theirs is the latest. */
  needsReply: boolean;
  /** The latest hand-off: why, and the contact's message that led to it. */
  handoff: { reason: string; message: string | null; at: string } | null;
  /** How many of its outgoing messages are failed. */
  failed: number;
  /** The team member (or the owner) who has it to answer; null: nobody. */
  assigneeId: string | null;
  contact: Contact | null;
}

export interface Attempt {
  at: string;
  status: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

export interface Message {
  id: string;
  contactId: string;
  conversationId: string | null;
  direction: 'incoming' | 'outgoing';
  body: string;
  status: string;
  error: string | null;
  errorCode: string | null;
  messageType: 'text' | 'reaction';
  channel: string | null;
  /** Messenger and Instagram: HUMAN_AGENT on a team reply sent after Meta's 24-hour window (within 7 days). */
  messageTag?: 'HUMAN_AGENT' | null;
  author: string | null;
  /** Who of the team wrote a team reply, by their name then. */
  authorId?: string | null;
  authorName?: string | null;
  /** A file the gateway keeps has its mediaId; one elsewhere (Meta's attachments) only its address. */
  media: { url: string; contentType: string; mediaId: string | null } | null;
  createdAt: string;
  updatedAt: string;
  deliveries?: Array<{ id: string; target: string; status: string; attempts: Attempt[]; nextAttemptAt: string | null }>;
}

export interface PageOf<T> {
  data: T[];
  nextCursor: string | null;
}
