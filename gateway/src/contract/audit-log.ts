import { z } from 'zod';
import { AUDIT_ACTIONS } from '../api-contract.js';
import { timestamp } from './shared.js';

/** One entry of the account's audit log: who changed what, and when. */
export const auditEntry = z
  .object({
    id: z.string(),
    at: timestamp,
    action: z.enum(AUDIT_ACTIONS).describe('What was done, as ?action= names it'),
    actor: z
      .object({
        type: z
          .enum(['member', 'api_key'])
          .describe('member: a console sign-in (the owner included); api_key: a workflow'),
        id: z
          .string()
          .nullable()
          .describe("The member's id (the owner's member id for the owner's sign-in); null for the API key"),
        name: z.string().describe('Their name as it was then; "API key" for the API key'),
      })
      .describe('Who did it'),
    target: z
      .object({
        type: z.enum(['member', 'channel', 'webhook', 'campaign', 'list', 'contact', 'subaccount']),
        id: z.string(),
        name: z
          .string()
          .nullable()
          .describe(
            "Its name as it was then (a member's, a list's, a campaign's, a channel's, a sub-account's); a contact's, never",
          ),
      })
      .nullable()
      .describe('What it was done to; null for a change of the account as a whole'),
    details: z
      .object({
        keys: z
          .array(z.string())
          .optional()
          .describe('The settings, or the fields of a campaign, that the change named'),
        role: z.string().optional().describe('The role a member was invited with'),
        roleBefore: z.string().optional().describe("A member's role before the change"),
        roleAfter: z.string().optional().describe("A member's role after the change"),
        events: z.array(z.string()).optional().describe('The events a webhook subscription was made for'),
        cleared: z.boolean().optional().describe('The custom channel webhook URL was cleared rather than set'),
        duplicateId: z.string().optional().describe('The contact merged into the target, gone since'),
        ip: z.string().optional().describe('The address the sign-in came from, as the gateway sees it'),
      })
      .describe(
        "What changed: names of settings and fields, never a value that is a secret, a key or a message's text",
      ),
  })
  .meta({
    id: 'AuditEntry',
    description: "An entry of the account's audit log (Slack's, GitHub's): who changed what, when; kept 365 days",
  });
