import pg from 'pg';
import { gatewayVersion } from '../../version.js';

export interface Migration {
  version: number;
  name: string;
  /** Statements separated by semicolons, run in one transaction. */
  sql: string;
}

/**
 * Every schema change, in order. Written out in full rather than generated from collections.ts: a released
 * migration must do the same thing forever, whatever the code around it becomes. A change to the collections
 * is a new migration at the end; at open, checkSchema() refuses a database that lacks what collections.ts declares.
 *
 * Layout: one table per collection (`id`, `seq` for insertion order, the document as jsonb); each declared index
 * `<collection>_by_<index>` on the fields as text, partial (documents lacking a field are not in it), and ending
 * with `seq` unless unique, so that `find` reads its documents in order straight from the index.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'collections, jobs, blobs and rate-limit windows',
    sql: `
CREATE TABLE "accounts" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "accounts_by_email" ON "accounts" ((doc->>'email')) WHERE doc->>'email' IS NOT NULL;
CREATE UNIQUE INDEX "accounts_by_apiKeyHash" ON "accounts" ((doc->>'apiKeyHash')) WHERE doc->>'apiKeyHash' IS NOT NULL;
CREATE INDEX "accounts_by_parentId" ON "accounts" ((doc->>'parentId'), seq) WHERE doc->>'parentId' IS NOT NULL;

CREATE TABLE "contacts" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "contacts_by_phone" ON "contacts" ((doc->>'accountId'), (doc->>'phone'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'phone' IS NOT NULL;
CREATE INDEX "contacts_by_email" ON "contacts" ((doc->>'accountId'), (doc->>'email'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'email' IS NOT NULL;
CREATE UNIQUE INDEX "contacts_by_fromId" ON "contacts" ((doc->>'accountId'), (doc->>'fromId'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'fromId' IS NOT NULL;
CREATE UNIQUE INDEX "contacts_by_emailOnly" ON "contacts" ((doc->>'accountId'), (doc->>'emailOnly'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'emailOnly' IS NOT NULL;

CREATE TABLE "lists" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "lists_by_account" ON "lists" ((doc->>'accountId'), seq) WHERE doc->>'accountId' IS NOT NULL;

CREATE TABLE "memberships" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "memberships_by_member" ON "memberships" ((doc->>'listId'), (doc->>'contactId'))
  WHERE doc->>'listId' IS NOT NULL AND doc->>'contactId' IS NOT NULL;
CREATE INDEX "memberships_by_list" ON "memberships" ((doc->>'listId'), seq) WHERE doc->>'listId' IS NOT NULL;

CREATE TABLE "campaigns" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "campaigns_by_account" ON "campaigns" ((doc->>'accountId'), seq) WHERE doc->>'accountId' IS NOT NULL;

CREATE TABLE "messages" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "messages_by_messageSid" ON "messages" ((doc->>'accountId'), (doc->>'messageSid'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'messageSid' IS NOT NULL;
CREATE INDEX "messages_by_contact" ON "messages" ((doc->>'contactId'), seq) WHERE doc->>'contactId' IS NOT NULL;

CREATE TABLE "media" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);

CREATE TABLE "deliveries" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "deliveries_by_message" ON "deliveries" ((doc->>'messageId'), seq) WHERE doc->>'messageId' IS NOT NULL;

CREATE TABLE "webhooks" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "webhooks_by_account" ON "webhooks" ((doc->>'accountId'), seq) WHERE doc->>'accountId' IS NOT NULL;

CREATE TABLE "transactions" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "transactions_by_account" ON "transactions" ((doc->>'accountId'), seq) WHERE doc->>'accountId' IS NOT NULL;

CREATE TABLE "idempotency" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "idempotency_by_key" ON "idempotency" ((doc->>'accountId'), (doc->>'key'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'key' IS NOT NULL;

CREATE TABLE leadchat_jobs (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  kind text NOT NULL,
  data jsonb NOT NULL,
  account_id text,
  key text,
  status text NOT NULL CHECK (status IN ('pending', 'running', 'dead')),
  -- Epoch ms: when a pending job is due, when a running job's lease ends; NULL once dead.
  run_at bigint CHECK ((run_at IS NULL) = (status = 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  lease text,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- Only jobs that will run are in it, so a claim costs the same however many are dead or wait for later.
CREATE INDEX leadchat_jobs_due ON leadchat_jobs (run_at, seq) WHERE status <> 'dead';
CREATE UNIQUE INDEX leadchat_jobs_key ON leadchat_jobs (key) WHERE key IS NOT NULL;
CREATE INDEX leadchat_jobs_status ON leadchat_jobs (status, seq);

CREATE TABLE leadchat_blobs (
  account_id text NOT NULL,
  id text NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (account_id, id)
);

CREATE TABLE leadchat_hits (key text PRIMARY KEY, hits integer NOT NULL, reset_at bigint NOT NULL);
CREATE INDEX leadchat_hits_reset ON leadchat_hits (reset_at);
`,
  },
  {
    version: 2,
    name: 'gateway settings shared by every process',
    sql: `
CREATE TABLE leadchat_settings (name text PRIMARY KEY, value text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
`,
  },
  {
    version: 3,
    name: 'conversations, opening messages and campaign pacing',
    sql: `
CREATE TABLE "conversations" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "conversations_by_channel" ON "conversations" ((doc->>'accountId'), (doc->>'contactId'), (doc->>'channelKey'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'contactId' IS NOT NULL AND doc->>'channelKey' IS NOT NULL;
CREATE INDEX "conversations_by_contact" ON "conversations" ((doc->>'contactId'), seq) WHERE doc->>'contactId' IS NOT NULL;
CREATE INDEX "conversations_by_account" ON "conversations" ((doc->>'accountId'), seq) WHERE doc->>'accountId' IS NOT NULL;
CREATE INDEX "conversations_by_status" ON "conversations" ((doc->>'accountId'), (doc->>'status'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'status' IS NOT NULL;
CREATE INDEX "conversations_by_campaign" ON "conversations" ((doc->>'accountId'), (doc->>'campaignId'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'campaignId' IS NOT NULL;
CREATE INDEX "conversations_by_kind" ON "conversations" ((doc->>'accountId'), (doc->>'channel'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'channel' IS NOT NULL;
CREATE INDEX "conversations_by_heldFollowUp" ON "conversations" ((doc->>'campaignId'), (doc->>'followUpHeld'), seq)
  WHERE doc->>'campaignId' IS NOT NULL AND doc->>'followUpHeld' IS NOT NULL;

CREATE TABLE "openings" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "openings_by_member" ON "openings" ((doc->>'campaignId'), (doc->>'contactId'))
  WHERE doc->>'campaignId' IS NOT NULL AND doc->>'contactId' IS NOT NULL;
CREATE INDEX "openings_by_contact" ON "openings" ((doc->>'contactId'), seq) WHERE doc->>'contactId' IS NOT NULL;
CREATE INDEX "openings_by_held" ON "openings" ((doc->>'campaignId'), (doc->>'held'), seq)
  WHERE doc->>'campaignId' IS NOT NULL AND doc->>'held' IS NOT NULL;

CREATE TABLE "pacing" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
`,
  },
  {
    version: 4,
    name: 'contact imports and their chunks of rows',
    sql: `
CREATE TABLE "imports" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "imports_by_list" ON "imports" ((doc->>'listId'), seq) WHERE doc->>'listId' IS NOT NULL;

CREATE TABLE "import_chunks" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "import_chunks_by_position" ON "import_chunks" ((doc->>'importId'), (doc->>'position'))
  WHERE doc->>'importId' IS NOT NULL AND doc->>'position' IS NOT NULL;
`,
  },
  {
    version: 5,
    name: 'messages by their id at the channel provider',
    sql: `
CREATE UNIQUE INDEX "messages_by_providerMessageId" ON "messages" ((doc->>'accountId'), (doc->>'providerMessageId'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'providerMessageId' IS NOT NULL;
`,
  },
  {
    version: 6,
    name: 'web console sessions',
    sql: `
CREATE TABLE "sessions" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "sessions_by_tokenHash" ON "sessions" ((doc->>'tokenHash')) WHERE doc->>'tokenHash' IS NOT NULL;
CREATE INDEX "sessions_by_account" ON "sessions" ((doc->>'accountId'), seq) WHERE doc->>'accountId' IS NOT NULL;
`,
  },
  {
    version: 7,
    name: 'campaign funnel steps and their counts per day',
    sql: `
CREATE TABLE "funnel_steps" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);

CREATE TABLE "funnel_counts" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "funnel_counts_by_month" ON "funnel_counts" ((doc->>'campaignId'), (doc->>'month'), seq)
  WHERE doc->>'campaignId' IS NOT NULL AND doc->>'month' IS NOT NULL;
`,
  },
  {
    version: 8,
    name: "contacts' external IDs on custom channels, the contacts a campaign could not reach, conversations with failed messages",
    sql: `
CREATE TABLE "external_ids" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE UNIQUE INDEX "external_ids_by_value" ON "external_ids" ((doc->>'accountId'), (doc->>'externalId'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'externalId' IS NOT NULL;

CREATE TABLE "unreachable" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);

CREATE TABLE "unreachable_counts" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);

CREATE INDEX "conversations_by_failing" ON "conversations" ((doc->>'accountId'), (doc->>'failing'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'failing' IS NOT NULL;
`,
  },
  {
    version: 9,
    name: 'conversations that need a reply',
    sql: `
UPDATE "conversations" SET doc = doc || '{"awaiting":"reply"}'
  WHERE COALESCE((doc->>'unread')::int, 0) > 0 OR doc->'lastMessage'->>'direction' = 'incoming';
CREATE INDEX "conversations_by_awaiting" ON "conversations" ((doc->>'accountId'), (doc->>'awaiting'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'awaiting' IS NOT NULL;
`,
  },
  {
    version: 10,
    name: 'team members, their sessions, conversation assignees and round-robin turns',
    sql: `
CREATE TABLE "members" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "members_by_account" ON "members" ((doc->>'accountId'), seq) WHERE doc->>'accountId' IS NOT NULL;
CREATE UNIQUE INDEX "members_by_email" ON "members" ((doc->>'accountId'), (doc->>'email'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'email' IS NOT NULL;
CREATE INDEX "members_by_login" ON "members" ((doc->>'email'), seq) WHERE doc->>'email' IS NOT NULL;
CREATE UNIQUE INDEX "members_by_inviteToken" ON "members" ((doc->>'inviteTokenHash')) WHERE doc->>'inviteTokenHash' IS NOT NULL;

CREATE INDEX "sessions_by_member" ON "sessions" ((doc->>'memberId'), seq) WHERE doc->>'memberId' IS NOT NULL;

CREATE INDEX "conversations_by_assignee" ON "conversations" ((doc->>'accountId'), (doc->>'assigneeId'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'assigneeId' IS NOT NULL;

CREATE TABLE "assignment_turns" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
`,
  },
  {
    version: 11,
    name: 'a write sent ahead fails its transaction when its document changed since it was read',
    sql: `
CREATE FUNCTION leadchat_changed() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the document changed since the transaction read it' USING ERRCODE = 'serialization_failure';
END
$$;
`,
  },
  {
    version: 12,
    // Rate-limit windows need no durability (after a crash they start again): not written to the WAL, a hit
    // commits without waiting for the disk, and holds its counter's row only for the statement.
    name: 'rate-limit windows are not written to the WAL',
    sql: `ALTER TABLE leadchat_hits SET UNLOGGED;`,
  },
  {
    version: 13,
    name: 'questions the bot handed off for want of an answer',
    sql: `
CREATE TABLE "unanswered" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "unanswered_by_campaign" ON "unanswered" ((doc->>'campaignId'), seq) WHERE doc->>'campaignId' IS NOT NULL;
`,
  },
  {
    version: 14,
    name: 'what contacts are found by: one search key per document',
    sql: `
CREATE TABLE "contact_search" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "contact_search_by_key" ON "contact_search" ((doc->>'accountId'), (doc->>'key'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'key' IS NOT NULL;
`,
  },
  {
    version: 15,
    // The queue's gauges at each scrape, at a cost that does not grow with the queue: counts per kind kept by the
    // database itself (a trigger, so that every writer keeps them, an older gateway during a rolling upgrade or an
    // operator's own DELETE included), and the oldest waiting job of a kind found first in an index. A counter row
    // per kind and per connection (its backend's pid, folded to 1023 shards): a transaction that queues a job holds
    // its row until it commits, and no other transaction waits for it. The trigger comes before the first count,
    // and its lock holds writers off until the count is committed.
    name: "the job queue's counts per kind, for the metrics",
    sql: `
CREATE TABLE leadchat_job_counts (
  kind text NOT NULL,
  shard integer NOT NULL,
  queued bigint NOT NULL DEFAULT 0,
  dead bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (kind, shard)
);
CREATE FUNCTION leadchat_count_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mine integer := 1 + pg_backend_pid() % 1023;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO leadchat_job_counts AS c (kind, shard, queued, dead)
      VALUES (OLD.kind, mine, -(OLD.status <> 'dead')::int, -(OLD.status = 'dead')::int)
      ON CONFLICT (kind, shard) DO UPDATE SET queued = c.queued + excluded.queued, dead = c.dead + excluded.dead;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO leadchat_job_counts AS c (kind, shard, queued, dead)
      VALUES (NEW.kind, mine, (NEW.status <> 'dead')::int, (NEW.status = 'dead')::int)
      ON CONFLICT (kind, shard) DO UPDATE SET queued = c.queued + excluded.queued, dead = c.dead + excluded.dead;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER leadchat_jobs_counted AFTER INSERT OR DELETE ON leadchat_jobs FOR EACH ROW EXECUTE FUNCTION leadchat_count_jobs();
CREATE TRIGGER leadchat_jobs_recounted AFTER UPDATE OF kind, status ON leadchat_jobs FOR EACH ROW
  WHEN (OLD.kind IS DISTINCT FROM NEW.kind OR (OLD.status = 'dead') IS DISTINCT FROM (NEW.status = 'dead'))
  EXECUTE FUNCTION leadchat_count_jobs();
INSERT INTO leadchat_job_counts (kind, shard, queued, dead)
  SELECT kind, 0, count(*) FILTER (WHERE status <> 'dead'), count(*) FILTER (WHERE status = 'dead') FROM leadchat_jobs GROUP BY kind;
CREATE INDEX leadchat_jobs_oldest ON leadchat_jobs (kind, run_at) WHERE status <> 'dead';
`,
  },
  {
    version: 16,
    name: "each contact's provider messages still to be processed, in order",
    sql: `
CREATE TABLE "inbound_turns" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
`,
  },
  {
    version: 17,
    name: 'job queues: each claimed by runners of its own',
    sql: `
ALTER TABLE leadchat_jobs ADD COLUMN queue text NOT NULL DEFAULT 'default';
UPDATE leadchat_jobs SET queue = 'inbound' WHERE kind = 'inbound';
DROP INDEX leadchat_jobs_due;
CREATE INDEX leadchat_jobs_due ON leadchat_jobs (queue, run_at, seq) WHERE status <> 'dead';
`,
  },
  {
    version: 18,
    name: "a campaign's failed opening messages",
    sql: `
CREATE TABLE "failed_openings" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX "failed_openings_by_campaign" ON "failed_openings" ((doc->>'campaignId'), seq) WHERE doc->>'campaignId' IS NOT NULL;
`,
  },
  {
    version: 19,
    name: 'the contacts a campaign could not reach, read by campaign and reason',
    sql: `
CREATE INDEX "unreachable_by_campaign" ON "unreachable" ((doc->>'campaignId'), seq) WHERE doc->>'campaignId' IS NOT NULL;
CREATE INDEX "unreachable_by_reason" ON "unreachable" ((doc->>'campaignId'), (doc->>'reason'), seq)
  WHERE doc->>'campaignId' IS NOT NULL AND doc->>'reason' IS NOT NULL;
`,
  },
  {
    version: 20,
    name: "a contact's lists and deliveries found by contact; the opt-outs of erased contacts",
    sql: `
CREATE INDEX "memberships_by_contact" ON "memberships" ((doc->>'contactId'), seq) WHERE doc->>'contactId' IS NOT NULL;
UPDATE "deliveries" SET doc = doc || jsonb_build_object('contactId', doc->'payload'->>'contactId')
  WHERE doc->>'contactId' IS NULL AND doc->'payload'->>'contactId' IS NOT NULL;
CREATE INDEX "deliveries_by_contact" ON "deliveries" ((doc->>'contactId'), seq) WHERE doc->>'contactId' IS NOT NULL;
CREATE TABLE "erased_opt_outs" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
`,
  },
  {
    version: 21,
    // What domain/conversation-upgrade.ts does on the embedded store, as the rules stood when this was written: the
    // last message's author (which needsReply reads), awaiting by that needsReply, and when a contact who asked for a
    // person was told one will answer. The mark tells the gateway's own walk there is nothing left to do. And from
    // now on, which release applied each migration: a gateway refusing a newer schema names it.
    name: "conversations as this release derives them: the last message's author, needing a reply, the hand-off notice",
    sql: `
UPDATE "conversations" c SET doc = jsonb_set(c.doc, '{lastMessage}', (c.doc->'lastMessage') || jsonb_build_object(
    'author', COALESCE(m.doc->'author', 'null'::jsonb), 'authorName', COALESCE(m.doc->'authorName', 'null'::jsonb)))
  FROM "messages" m
  WHERE jsonb_typeof(c.doc->'lastMessage') = 'object' AND NOT (c.doc->'lastMessage' ? 'author')
    AND m.id = c.doc->'lastMessage'->>'id';
UPDATE "conversations" SET doc = jsonb_set(doc, '{lastMessage}', (doc->'lastMessage') || '{"author":null,"authorName":null}')
  WHERE jsonb_typeof(doc->'lastMessage') = 'object' AND NOT (doc->'lastMessage' ? 'author');
UPDATE "conversations" SET doc = doc || jsonb_build_object('awaiting', CASE
    WHEN doc->>'status' IS DISTINCT FROM 'opted_out' AND (doc->'lastMessage'->>'direction' = 'incoming'
      OR (doc->>'status' = 'handed_off' AND doc->'lastMessage'->>'direction' = 'outgoing'
        AND doc->'lastMessage'->>'author' IN ('bot', 'system'))) THEN 'reply' END);
UPDATE "conversations" SET doc = doc || jsonb_build_object('handoffNoticeAt', doc->'handoff'->'at')
  WHERE NOT (doc ? 'handoffNoticeAt') AND doc->'handoff'->>'reason' = 'contact_asked';
INSERT INTO leadchat_settings (name, value) VALUES ('conversations-upgraded-1', now()::text) ON CONFLICT (name) DO NOTHING;
ALTER TABLE leadchat_migrations ADD COLUMN IF NOT EXISTS gateway_version text;
`,
  },
  {
    version: 22,
    name: 'external IDs found by the contact holding them',
    sql: `
CREATE INDEX IF NOT EXISTS "external_ids_by_contact" ON "external_ids" ((doc->>'contactId'), seq) WHERE doc->>'contactId' IS NOT NULL;
`,
  },
  {
    version: 23,
    name: "a conversation's pending replies to a receiver found by their turn",
    sql: `
CREATE INDEX IF NOT EXISTS "deliveries_by_turn" ON "deliveries" ((doc->>'turn'), seq) WHERE doc->>'turn' IS NOT NULL;
`,
  },
  {
    version: 24,
    name: "when a contact was erased, under a keyed hash of each address: the provider's entries taken before are dropped",
    sql: `
CREATE TABLE IF NOT EXISTS "erasures" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
`,
  },
  {
    version: 25,
    name: 'the responses kept for an Idempotency-Key found by the contact they name, for its erasure to forget',
    sql: `
CREATE INDEX IF NOT EXISTS "idempotency_by_contact" ON "idempotency" ((doc->>'contactId'), seq) WHERE doc->>'contactId' IS NOT NULL;
`,
  },
  {
    version: 26,
    // What domain/conversation-upgrade.ts does on the embedded store, for the one rule of needsReply that changed: a
    // conversation handed to the team whose last message is a team reply that never reached the contact (failed, or
    // stored unsent) needs a reply. The gateway's walk then times their wait (jobs/conversation-upgrade.ts).
    name: 'conversations whose last message is a team reply that failed need a reply',
    sql: `
UPDATE "conversations" SET doc = doc || '{"awaiting":"reply"}'
  WHERE doc->>'status' = 'handed_off' AND doc->>'awaiting' IS NULL
    AND doc->'lastMessage'->>'direction' = 'outgoing'
    AND doc->'lastMessage'->>'status' IN ('failed', 'skipped')
    AND COALESCE(doc->'lastMessage'->>'author', '') NOT IN ('bot', 'system');
INSERT INTO leadchat_settings (name, value) VALUES ('conversations-upgraded-2', now()::text) ON CONFLICT (name) DO NOTHING;
`,
  },
  {
    version: 27,
    // The deliveries pending at the upgrade name their receiver as those made since do, for its deletion to find them
    // (engine/unsubscribe.ts); the embedded store's walk of its deliveries does the same (jobs/pending-deliveries.ts).
    name: 'the pending deliveries of a receiver found by its target, for its deletion to settle them',
    sql: `
UPDATE "deliveries" SET doc = doc || jsonb_build_object('pendingTarget', doc->>'target')
  WHERE doc->>'status' = 'pending' AND doc->>'pendingTarget' IS NULL;
CREATE INDEX IF NOT EXISTS "deliveries_by_pending" ON "deliveries" ((doc->>'pendingTarget'), seq) WHERE doc->>'pendingTarget' IS NOT NULL;
INSERT INTO leadchat_settings (name, value) VALUES ('pending-deliveries-named-1', now()::text) ON CONFLICT (name) DO NOTHING;
`,
  },
  {
    version: 28,
    // The credit history filtered by kind and by dates reads these indexes (domain/credit-history.ts). The entries of
    // earlier releases get their UTC day here, as the embedded store's walk gives it (jobs/credit-days.ts).
    name: 'the credit history found by kind and by day',
    sql: `
UPDATE "transactions" SET doc = doc || jsonb_build_object('day', left(doc->>'createdAt', 10))
  WHERE doc->>'day' IS NULL AND doc->>'createdAt' IS NOT NULL;
CREATE INDEX IF NOT EXISTS "transactions_by_kind" ON "transactions" ((doc->>'accountId'), (doc->>'kind'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'kind' IS NOT NULL;
CREATE INDEX IF NOT EXISTS "transactions_by_accountDay" ON "transactions" ((doc->>'accountId'), (doc->>'day'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'day' IS NOT NULL;
CREATE INDEX IF NOT EXISTS "transactions_by_kindDay" ON "transactions" ((doc->>'accountId'), (doc->>'kind'), (doc->>'day'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'kind' IS NOT NULL AND doc->>'day' IS NOT NULL;
INSERT INTO leadchat_settings (name, value) VALUES ('credit-days-1', now()::text) ON CONFLICT (name) DO NOTHING;
`,
  },
  {
    version: 29,
    name: "an agency's grants to its sub-accounts found by the agency, whole and by day, for its own credit history",
    sql: `
CREATE INDEX IF NOT EXISTS "transactions_by_grantedBy" ON "transactions" ((doc->>'grantedBy'), seq)
  WHERE doc->>'grantedBy' IS NOT NULL;
CREATE INDEX IF NOT EXISTS "transactions_by_grantedByDay" ON "transactions" ((doc->>'grantedBy'), (doc->>'day'), seq)
  WHERE doc->>'grantedBy' IS NOT NULL AND doc->>'day' IS NOT NULL;
`,
  },
  {
    version: 30,
    name: "the team's notes on a conversation, found by conversation and by contact",
    sql: `
CREATE TABLE IF NOT EXISTS "notes" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX IF NOT EXISTS "notes_by_conversation" ON "notes" ((doc->>'conversationId'), seq) WHERE doc->>'conversationId' IS NOT NULL;
CREATE INDEX IF NOT EXISTS "notes_by_contact" ON "notes" ((doc->>'contactId'), seq) WHERE doc->>'contactId' IS NOT NULL;
`,
  },
  {
    version: 31,
    name: "the team's saved replies, found by account and by name, one name per account",
    sql: `
CREATE TABLE IF NOT EXISTS "saved_replies" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX IF NOT EXISTS "saved_replies_by_account" ON "saved_replies" ((doc->>'accountId'), seq) WHERE doc->>'accountId' IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS "saved_replies_by_name" ON "saved_replies" ((doc->>'accountId'), (doc->>'nameKey'))
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'nameKey' IS NOT NULL;
`,
  },
  {
    version: 32,
    name: "the operator's deletions of accounts, each under the deleted account's id",
    sql: `
CREATE TABLE IF NOT EXISTS "account_deletions" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
`,
  },
  {
    version: 33,
    name: 'the snoozed conversations of an account',
    sql: `
CREATE INDEX IF NOT EXISTS "conversations_by_snoozed" ON "conversations" ((doc->>'accountId'), (doc->>'snoozed'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'snoozed' IS NOT NULL;
`,
  },
  {
    version: 34,
    name: "the account's audit log, read newest first by account, by action, by actor and by both",
    sql: `
CREATE TABLE IF NOT EXISTS "audit_log" (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE, doc jsonb NOT NULL);
CREATE INDEX IF NOT EXISTS "audit_log_by_account" ON "audit_log" ((doc->>'accountId'), seq) WHERE doc->>'accountId' IS NOT NULL;
CREATE INDEX IF NOT EXISTS "audit_log_by_action" ON "audit_log" ((doc->>'accountId'), (doc->>'action'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'action' IS NOT NULL;
CREATE INDEX IF NOT EXISTS "audit_log_by_actor" ON "audit_log" ((doc->>'accountId'), (doc->>'actorId'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'actorId' IS NOT NULL;
CREATE INDEX IF NOT EXISTS "audit_log_by_actionActor" ON "audit_log" ((doc->>'accountId'), (doc->>'action'), (doc->>'actorId'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'action' IS NOT NULL AND doc->>'actorId' IS NOT NULL;
`,
  },
  {
    version: 35,
    name: 'the labelled conversations of an account',
    sql: `
CREATE INDEX IF NOT EXISTS "conversations_by_labelled" ON "conversations" ((doc->>'accountId'), (doc->>'labelled'), seq)
  WHERE doc->>'accountId' IS NOT NULL AND doc->>'labelled' IS NOT NULL;
`,
  },
];

/** Arbitrary and fixed: the advisory lock under which one process at a time migrates a database. */
const MIGRATION_LOCK = 7_126_530_411;

/**
 * The name the connection that migrates shows in pg_stat_activity, from its first moment: a process starting beside
 * this one waits for the lock under it, and is told from a process that serves (see othersServing).
 */
const MIGRATING = 'leadchat-gateway migrating';

/** How long connections of processes that just stopped are given to leave before they count as serving. */
const LEAVING_MS = 1_000;
const LEAVING_STEP_MS = 100;

/** Where each migration applied is told. */
export interface MigrationLog {
  info(fields: object, message: string): void;
}

/**
 * Brings the database to the newest schema, each migration in its own transaction, logging each one applied (its
 * version, name and time) on `log`. Processes that start together wait for each other on the advisory lock, and
 * those that come second find nothing left to do. A database that other gateway processes are serving is refused
 * rather than migrated under them: they were written for the schema they found.
 */
export async function migrate(pool: pg.Pool, list: Migration[] = migrations, log?: MigrationLog): Promise<void> {
  const client = new pg.Client({ ...pool.options, application_name: MIGRATING });
  // A connection ended between statements must fail the migration, not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS leadchat_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM leadchat_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const known = list.at(-1)?.version ?? 0;
    const newest = Math.max(0, ...applied);
    if (newest > known) throw await newerSchema(client, newest, known);
    const missing = list.filter((m) => !applied.has(m.version));
    // A database with no schema yet has no process serving it, only ones starting as this one does.
    if (missing.length && applied.size) {
      const serving = await othersServing(client);
      if (serving.length) throw servedDatabase(newest, known, serving);
    }
    for (const migration of missing) {
      const started = performance.now();
      await apply(client, migration);
      log?.info(
        { version: migration.version, name: migration.name, ms: Math.round(performance.now() - started) },
        'database migrated',
      );
    }
  } finally {
    // Ending the connection lets go of the lock, whatever became of it.
    await client.end().catch(() => undefined);
  }
}

interface Connection {
  pid: number;
  host: string;
}

/**
 * The connections of other gateway processes to this database (each serving one holds at least the one that
 * listens for jobs), but for those that are only leaving: a process that has just stopped may still show them.
 */
async function othersServing(client: pg.Client): Promise<Connection[]> {
  const connected = async () =>
    (
      await client.query<Connection>(
        `SELECT pid, CASE WHEN client_port = -1 THEN 'a local socket' ELSE COALESCE(host(client_addr), 'an unnamed host') END AS host
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND application_name LIKE 'leadchat-gateway%' AND application_name <> $1
          ORDER BY backend_start`,
        [MIGRATING],
      )
    ).rows;
  let found = await connected();
  for (let waited = 0; found.length && waited < LEAVING_MS; waited += LEAVING_STEP_MS) {
    await new Promise((resolve) => setTimeout(resolve, LEAVING_STEP_MS));
    const still = new Set((await connected()).map((c) => c.pid));
    found = found.filter((c) => still.has(c.pid));
  }
  return found;
}

/** A database other processes serve: refused, naming where they connect from, for the operator to stop them. */
function servedDatabase(newest: number, known: number, serving: Connection[]): Error {
  const byHost = new Map<string, number>();
  for (const { host } of serving) byHost.set(host, (byHost.get(host) ?? 0) + 1);
  const from = [...byHost].map(([host, n]) => `${n} from ${host}`).join(', ');
  return new Error(
    `store: the database (schema version ${newest}) is in use by other gateway processes (connections: ${from}); ` +
      `this gateway (leadchat-gateway ${gatewayVersion}) would migrate it to schema version ${known}, which they were ` +
      `not written for: stop every process, then start the new version (README, "Upgrades"); nothing was changed`,
  );
}

/** The migration from which leadchat_migrations says which release applied each one. */
const RECORDS_RELEASE = 21;

/**
 * A database a newer release migrated: refused, in the words the embedded store uses for a newer data dir
 * (lowdb/format.ts), naming that release where the database recorded it.
 */
async function newerSchema(client: pg.Client, newest: number, known: number): Promise<Error> {
  const { rows } = await client
    .query<{
      gateway_version: string | null;
    }>('SELECT gateway_version FROM leadchat_migrations WHERE version = $1', [newest])
    .catch(() => ({ rows: [] as Array<{ gateway_version: string | null }> }));
  const by = rows[0]?.gateway_version ? ` by leadchat-gateway ${rows[0].gateway_version}` : '';
  return new Error(
    `store: the database was migrated${by} to schema version ${newest}, newer than this gateway (leadchat-gateway ` +
      `${gatewayVersion}) reads (schema version ${known}): upgrade the gateway (README, "Upgrades"); nothing was changed`,
  );
}

async function apply(client: pg.Client, migration: Migration): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(migration.sql);
    if (migration.version >= RECORDS_RELEASE) {
      await client.query('INSERT INTO leadchat_migrations (version, name, gateway_version) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        gatewayVersion,
      ]);
    } else {
      await client.query('INSERT INTO leadchat_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new Error(`store: migration ${migration.version} (${migration.name}) failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
