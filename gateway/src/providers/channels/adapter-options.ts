import type { TargetPolicy } from '../../config.js';

/** How an adapter reaches its provider's API: its address, and the operator's limits on time, size and targets. */
export interface AdapterOptions {
  apiUrl: string;
  /** Time allowed to the provider's API to take a message. */
  sendTimeoutMs: number;
  /** Time allowed to read a contact's file or profile. */
  readTimeoutMs: number;
  /** The largest contact's file the gateway keeps (LEADCHAT_MAX_MEDIA_BYTES). */
  maxBytes: number;
  targets: TargetPolicy;
}
