import { NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

import { listLocator } from '../../shared/descriptions';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';
import { textOf } from '../../shared/text';

/** Meta's channels let a business answer only: their campaigns have no list to write to and no opening message. */
const ANSWER_ONLY = ['messenger', 'instagram'];

/** The campaign's list: the list locator of the other operations, optional here, and not on Meta's channels. */
const campaignList: INodeProperties = {
  ...listLocator,
  required: false,
  description:
    'The list whose new contacts get the opening message. Needed to go Live on SMS, WhatsApp and custom channels.',
  displayOptions: { hide: { channel: ANSWER_ONLY } },
};

export const description = forOperation('campaign', 'create', [
  {
    displayName: 'Name',
    name: 'name',
    type: 'string',
    default: '',
    required: true,
    placeholder: 'e.g. Spring teeth cleaning',
    description: 'A descriptive name, shown in the app and in the Campaign dropdowns',
  },
  {
    displayName: 'Channel',
    name: 'channel',
    type: 'options',
    options: [
      {
        name: 'Custom Channel',
        value: 'custom',
        description: "Writes first to the list's contacts through the Custom Channel Webhook, then the AI bot answers",
      },
      {
        name: 'Instagram',
        value: 'instagram',
        description: 'Answers those who write to your Instagram professional account; sends no opening message',
      },
      {
        name: 'Messenger',
        value: 'messenger',
        description: 'Answers those who write to your Page; sends no opening message',
      },
      {
        name: 'SMS',
        value: 'sms',
        description: "Texts the opening message to the list's contacts, then the AI bot answers",
      },
      {
        name: 'WhatsApp',
        value: 'whatsapp',
        description: "Sends an approved WhatsApp template to the list's contacts, then the AI bot answers",
      },
    ],
    default: 'sms',
    description: 'Where the campaign talks with its contacts',
  },
  {
    displayName: 'Custom Channel',
    name: 'customChannel',
    type: 'string',
    default: '',
    placeholder: 'e.g. webchat',
    description:
      'Name of the custom channel, as your system labels its messages. Needed to go Live on a custom channel.',
    displayOptions: { show: { channel: ['custom'] } },
  },
  campaignList,
  {
    displayName: 'Opening Message',
    name: 'openingMessage',
    type: 'string',
    typeOptions: { rows: 3 },
    default: '',
    placeholder: 'e.g. Hi {{first_name|there}}, thanks for your interest! Any question about our offer?',
    description:
      'The first message to each contact added to the list; {{first_name}} and the other contact fields are replaced. Needed to go Live.',
    displayOptions: { hide: { channel: ANSWER_ONLY } },
  },
  {
    displayName: 'Status',
    name: 'status',
    type: 'options',
    options: [
      {
        name: 'Draft',
        value: 'draft',
        description: 'Saved; it sends and answers nothing until it is Live',
      },
      {
        name: 'Live',
        value: 'live',
        description:
          'Starts at once. Refused, with the reason, when it cannot send yet (no list, no opening message, channel not connected).',
      },
    ],
    default: 'draft',
  },
  {
    displayName: 'Additional Fields',
    name: 'additionalFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Bot Active',
        name: 'botActive',
        type: 'boolean',
        default: true,
        description: "Whether the AI bot answers the campaign's contacts; off: only the team answers",
      },
      {
        displayName: 'Bot FAQs',
        name: 'faqs',
        type: 'fixedCollection',
        typeOptions: { multipleValues: true, sortable: true },
        placeholder: 'Add FAQ',
        default: {},
        description: 'Questions and answers the AI bot answers from',
        options: [
          {
            displayName: 'FAQ',
            name: 'faq',
            values: [
              {
                displayName: 'Question',
                name: 'question',
                type: 'string',
                default: '',
                placeholder: 'e.g. What are your opening hours?',
              },
              {
                displayName: 'Answer',
                name: 'answer',
                type: 'string',
                typeOptions: { rows: 2 },
                default: '',
                placeholder: 'e.g. We are open Monday to Friday, 9am to 6pm.',
              },
            ],
          },
        ],
      },
      {
        displayName: 'Bot Goal',
        name: 'goal',
        type: 'string',
        default: '',
        placeholder: 'e.g. The contact books a cleaning',
        description: 'What the AI bot works towards; reaching it sends the Goal Reached event',
      },
      {
        displayName: 'Bot Hand-Off Message',
        name: 'handoffMessage',
        type: 'string',
        default: '',
        description: "What the contact is told when a person takes over; empty: a default in the campaign's language",
      },
      {
        displayName: 'Bot Instructions',
        name: 'instructions',
        type: 'string',
        typeOptions: { rows: 3 },
        default: '',
        description: 'How the AI bot should talk: tone, what to ask, what never to say',
      },
      {
        displayName: 'Company Info',
        name: 'companyInfo',
        type: 'string',
        typeOptions: { rows: 3 },
        default: '',
        description: 'What the AI bot knows about your business',
      },
      {
        displayName: 'Idempotency Key',
        name: 'idempotencyKey',
        type: 'string',
        default: '',
        placeholder: 'e.g. {{ $json.campaignRequestId }}',
        description:
          'A key of this campaign alone: sent again with the same key and fields, as when its answer was lost and the workflow ran again, the campaign is created once and the first one is output. Never one key for several campaigns.',
      },
      {
        displayName: 'Language',
        name: 'language',
        type: 'string',
        default: 'en',
        placeholder: 'e.g. pt-BR',
        description:
          "The campaign's language as a BCP 47 tag (en, pt-BR, es-419…): the bot's, and the WhatsApp templates'",
      },
      {
        displayName: 'Opening Template',
        name: 'openingTemplate',
        type: 'string',
        default: '',
        placeholder: 'e.g. spring_offer',
        description:
          'WhatsApp only: the approved template the opening message goes as (a Content SID "HX…" with Twilio)',
      },
      {
        displayName: 'Trigger on New Contacts Added to List',
        name: 'triggerOnNewContacts',
        type: 'boolean',
        default: true,
        description: 'Whether each contact added to the list gets the opening message while the campaign is Live',
      },
    ],
  },
]);

interface CreateFields {
  botActive?: boolean;
  idempotencyKey?: string;
  faqs?: { faq?: Array<{ question?: string; answer?: string }> };
  goal?: string;
  handoffMessage?: string;
  instructions?: string;
  companyInfo?: string;
  language?: string;
  openingTemplate?: string;
  triggerOnNewContacts?: boolean;
}

const text = (value: unknown) => textOf(value).trim();

/** The FAQs as the API takes them; one with a question and no answer (or the reverse) fails the item, naming it. */
function readFaqs(
  this: IExecuteFunctions,
  fields: CreateFields,
  itemIndex: number,
): Array<{ question: string; answer: string }> {
  return (fields.faqs?.faq ?? []).map((entry, index) => {
    const question = text(entry.question);
    const answer = text(entry.answer);
    if (!question || !answer) {
      throw new NodeOperationError(
        this.getNode(),
        `FAQ ${index + 1} of Bot FAQs has no ${question ? 'answer' : 'question'}`,
        { itemIndex, description: 'Give each FAQ its question and its answer, or remove it.' },
      );
    }
    return { question, answer };
  });
}

/**
 * Creates a campaign. What it may be (an opening message on Messenger or Instagram, Live without what it needs to
 * send) is the server's to decide: its refusal comes back with the fields it names and what to fix.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const name = text(this.getNodeParameter('name', itemIndex, ''));
  if (!name) {
    throw new NodeOperationError(this.getNode(), 'Name is empty', {
      itemIndex,
      description: 'Give the campaign a name.',
    });
  }
  const channel = text(this.getNodeParameter('channel', itemIndex, '')).toLowerCase();
  const body: IDataObject = {
    name,
    status: this.getNodeParameter('status', itemIndex, 'draft') as string,
  };
  if (channel) body.channel = channel;
  const customChannel = text(this.getNodeParameter('customChannel', itemIndex, ''));
  if (customChannel) body.customChannel = customChannel;
  // n8n drops a parameter the editor hides (the List of a Meta campaign), and cannot extract a value from nothing.
  if (this.getNodeParameter('list', itemIndex, null) !== null) {
    const listId = text(this.getNodeParameter('list', itemIndex, '', { extractValue: true }));
    if (listId) body.listId = listId;
  }
  const openingMessage = text(this.getNodeParameter('openingMessage', itemIndex, ''));
  if (openingMessage) body.openingMessage = openingMessage;

  const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as CreateFields;
  for (const key of ['language', 'openingTemplate'] as const) {
    const value = text(fields[key]);
    if (value) body[key] = value;
  }
  if (typeof fields.triggerOnNewContacts === 'boolean') body.triggerOnNewContacts = fields.triggerOnNewContacts;

  const bot: IDataObject = {};
  if (typeof fields.botActive === 'boolean') bot.active = fields.botActive;
  for (const key of ['instructions', 'companyInfo', 'goal', 'handoffMessage'] as const) {
    const value = text(fields[key]);
    if (value) bot[key] = value;
  }
  const faqs = readFaqs.call(this, fields, itemIndex);
  if (faqs.length) bot.faqs = faqs;
  if (Object.keys(bot).length) body.bot = bot;

  const idempotencyKey = text(fields.idempotencyKey);
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: '/campaigns',
    body,
    headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : undefined,
    itemIndex,
    retry: settings.retry,
    notFoundHint: 'Check the List: no list of this account has this ID.',
  });
  return response.body;
}
