import { runBotReply } from '../engine/bot-reply.js';
import { runFollowUp } from '../engine/follow-ups.js';
import { runCampaignResume, runOpening } from '../engine/openings.js';
import { indexContacts } from './contact-search-index.js';
import { deliver } from './deliver.js';
import { housekeeping } from './housekeeping.js';
import { runImport } from './import.js';
import type { JobHandler } from './queue.js';
import { sendMessageJob } from './send.js';

/** Every kind of durable job and what runs it. */
export const jobHandlers: Record<string, JobHandler> = {
  deliver,
  housekeeping,
  send: sendMessageJob,
  opening: runOpening,
  follow_up: runFollowUp,
  campaign_resume: runCampaignResume,
  import: runImport,
  bot_reply: runBotReply,
  contact_search_index: indexContacts,
};
