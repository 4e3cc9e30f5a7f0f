import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { filtersOf, readFilters, readLimit, returnAllAndLimit } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import { readSimplify, simplifyConversation, simplifyFields } from '../../shared/simplify';
import type { RunSettings } from '../../shared/types';
import { leadChatGetMany } from '../../transport/paginate';

export const description = forOperation('conversation', 'getAll', [
  ...returnAllAndLimit,
  filtersOf([
    {
      displayName: 'Assignee Name or ID',
      name: 'assigneeId',
      type: 'options',
      typeOptions: { loadOptionsMethod: 'getAssignees' },
      default: '',
      description:
        'Only the conversations of this team member, or the unassigned ones. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
    },
    {
      displayName: 'Campaign ID',
      name: 'campaignId',
      type: 'string',
      default: '',
      description: 'Only conversations of this campaign',
    },
    {
      displayName: 'Channel',
      name: 'channel',
      type: 'options',
      options: [
        {
          name: 'Custom Channel',
          value: 'custom',
          description: 'Messages exchanged through Message > Receive and the Custom Channel Webhook',
        },
        {
          name: 'Instagram',
          value: 'instagram',
          description: "Direct messages to the account's Instagram professional account",
        },
        {
          name: 'Messenger',
          value: 'messenger',
          description: "Messages to the account's Facebook Page",
        },
        { name: 'SMS', value: 'sms', description: 'Text messages to and from phone numbers' },
        { name: 'WhatsApp', value: 'whatsapp', description: 'WhatsApp messages to and from phone numbers' },
      ],
      default: 'custom',
      description: 'Only conversations on this channel',
    },
    {
      displayName: 'Contact ID',
      name: 'contactId',
      type: 'string',
      default: '',
      placeholder: 'e.g. ct_V1StGXR8Z5jdHi6B',
      description:
        "Only this contact's conversations, one per channel: the contactId of a trigger event, of a contact or of Lead > Capture",
    },
    {
      displayName: 'Has Failed Message',
      name: 'failed',
      type: 'boolean',
      default: true,
      description:
        'Whether to keep only the conversations holding an outgoing message that failed (on: those; off: only the others)',
    },
    {
      displayName: 'Label Name or ID',
      name: 'label',
      type: 'options',
      typeOptions: { loadOptionsMethod: 'getLabels' },
      default: '',
      description:
        'Only the conversations carrying this label, in any case. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
    },
    {
      displayName: 'Needs Reply',
      name: 'needsReply',
      type: 'boolean',
      default: true,
      description:
        'Whether to keep only the conversations whose contact waits for an answer: an unread message from them, or theirs is the latest (on: those; off: only the others)',
    },
    {
      displayName: 'Reminded',
      name: 'reminded',
      type: 'boolean',
      default: true,
      description:
        'Whether to keep only the conversations whose contact still waits for a person after the team was reminded, as a Hand-Off Waiting event tells (on: those; off: only the others)',
    },
    {
      displayName: 'Snoozed',
      name: 'snoozed',
      type: 'boolean',
      default: true,
      description:
        'Whether to keep only the conversations snoozed until later, out of the inbox until then (on: those; off: only the others)',
    },
    {
      displayName: 'Status',
      name: 'status',
      type: 'options',
      options: [
        { name: 'Active', value: 'active', description: 'The AI bot or the team is talking with the contact' },
        { name: 'Closed', value: 'closed', description: 'The last follow-up went unanswered' },
        { name: 'Handed Off', value: 'handed_off', description: 'A person took over; the bot is silent' },
        { name: 'Opted Out', value: 'opted_out', description: 'The contact asked to receive nothing more' },
      ],
      default: 'active',
    },
  ]),
  ...simplifyFields,
]);

/** The conversations of the account, newest activity first, one output item each. */
export async function execute(
  this: IExecuteFunctions,
  itemIndex: number,
  settings: RunSettings,
): Promise<IDataObject[]> {
  const qs = readFilters.call(
    this,
    itemIndex,
    ['status', 'campaignId', 'contactId', 'channel', 'assigneeId', 'label'],
    ['failed', 'needsReply', 'reminded', 'snoozed'],
  );
  const conversations = await leadChatGetMany.call(
    this,
    {
      path: '/conversations',
      qs,
      itemIndex,
      retry: settings.retry,
      notFoundHint: 'Check the Contact ID: no contact of this account has this ID (an erased contact is gone).',
    },
    readLimit.call(this, itemIndex),
  );
  return readSimplify.call(this, itemIndex) ? conversations.map(simplifyConversation) : conversations;
}
