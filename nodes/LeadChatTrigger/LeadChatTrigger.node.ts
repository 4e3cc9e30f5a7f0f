import {
  NodeConnectionTypes,
  NodeOperationError,
  type IDataObject,
  type IHookFunctions,
  type INodePropertyOptions,
  type INodeType,
  type INodeTypeDescription,
  type IWebhookFunctions,
  type IWebhookResponseData,
} from 'n8n-workflow';

import type { CreateWebhookAnswer, WebhookPayloads } from '../LeadChat/transport/answers';
import { leadChatPaged } from '../LeadChat/transport/paginate';
import { leadChatRequest } from '../LeadChat/transport/request';
import { takeDelivery } from './deliveries';
import { verifySignature } from './signature';

/**
 * The events a subscription takes, by the names the API document gives its webhooks: every one but the test of the
 * Custom Channel Webhook URL, which is posted only when asked for.
 */
type SubscribableEvent = Exclude<keyof WebhookPayloads, 'test'>;

/**
 * Every event the trigger offers, as the API names them (snake_case, the `webhook-event` header), sorted by the
 * name the editor shows. The rest of the trigger takes the names from here; a name the API does not post does not
 * compile.
 */
const EVENTS = [
  {
    name: 'Auto-Recharge',
    value: 'auto_recharge',
    description: "An agency's sub-account needs credits; carries an idempotency_key to grant them exactly once",
  },
  {
    name: 'Conversation Labeled',
    value: 'conversation_labeled',
    description:
      'A team member or a workflow added labels to a conversation or removed one (e.g. Demo booked): which, and every label it carries now',
  },
  {
    name: 'Delivery Failed',
    value: 'delivery_failed',
    description: 'An outgoing message could not be delivered, after every retry; channel names where it was going',
  },
  {
    name: 'Goal Reached',
    value: 'goal_reached',
    description:
      "The AI bot reached the campaign's goal in a conversation (the contact booked, bought, agreed…); once per conversation",
  },
  {
    name: 'Hand-Off',
    value: 'handoff',
    description:
      'A conversation passed to a person: the contact asked for one, the bot could not answer (or its answer never reached the contact), chose to hand over or had answered the conversation as often within an hour as the account allows, or a team member took over; names the channel and the team member it is assigned to, if any',
  },
  {
    name: 'Hand-Off Waiting',
    value: 'handoff_waiting',
    description:
      "A contact handed to a person has had no reply from the team for as long as the account's reminder allows (15 minutes unless changed); once per wait, naming who has the conversation, so a workflow can page them",
  },
  {
    name: 'Message Received',
    value: 'message_received',
    description:
      'A contact wrote, on any channel: SMS, WhatsApp, Messenger, Instagram or a custom channel, named in the channel field',
  },
  {
    name: 'Opt-Out',
    value: 'opt_out',
    description: 'A contact opted out of every channel (STOP and the like); channel names the one they wrote it on',
  },
  {
    name: 'Reply',
    value: 'reply',
    description:
      'The AI bot or an agent replied to a contact on a custom channel, for your system to deliver (replies on SMS, WhatsApp, Messenger and Instagram go out by themselves)',
  },
  {
    name: 'Snooze Ended',
    value: 'snooze_ended',
    description:
      'A snoozed conversation is back in the inbox: the time it was snoozed until came, or the contact wrote first; names the team member who has it, if any',
  },
] as const satisfies ReadonlyArray<INodePropertyOptions & { value: SubscribableEvent }>;

type EventName = (typeof EVENTS)[number]['value'];

function isEvent(name: string): name is EventName {
  return EVENTS.some((event) => event.value === name);
}

interface SubscriptionData {
  webhookId?: string;
  webhookSecret?: string;
}

const NO_SUBSCRIPTION_API =
  'This server has no webhook-subscription API (POST /webhooks), which the hosted service may lack. Set Registration to Manual and paste the Production URL into Settings > Custom Channel Webhook.';

function selectedEvents(this: IHookFunctions | IWebhookFunctions): EventName[] {
  const events = this.getNodeParameter('events', []) as string[];
  return EVENTS.map((event) => event.value).filter((event) => events.includes(event));
}

function sameEvents(a: unknown, b: EventName[]): boolean {
  if (!Array.isArray(a)) return false;
  return a.length === b.length && b.every((event) => a.includes(event));
}

/**
 * The ids of the subscriptions for this node's URL, found on the server: the one this node stored, and any its
 * static data lost (a workflow imported again, a failed deactivation). A server without the list (404, 405) has none
 * to show (a server without it has no automatic registration either).
 */
async function subscriptionsForUrl(
  this: IHookFunctions,
): Promise<Array<{ id: string; events?: unknown; status?: unknown }>> {
  const url = this.getNodeWebhookUrl('default');
  const { records, statusCode } = await (leadChatPaged<'/webhooks'>).call(this, {
    path: '/webhooks',
    accept: [404, 405],
  });
  if (statusCode === 404 || statusCode === 405) return [];
  return records
    .filter((subscription) => typeof subscription.id === 'string' && subscription.url === url)
    .map((subscription) => ({
      id: subscription.id as string,
      events: subscription.events,
      status: subscription.status,
    }));
}

/**
 * Enables a subscription the server disabled (its receiver answered 410 Gone, or every delivery failed for days):
 * the workflow activated again is the sign its receiver is back. False when it is gone meanwhile.
 */
async function enableSubscription(this: IHookFunctions, id: string): Promise<boolean> {
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/webhooks/${encodeURIComponent(id)}/enable`,
    notFoundCode: 'WEBHOOK_NOT_FOUND',
  });
  return response.statusCode === 200;
}

/** Unsubscribes one; a subscription already gone (404 WEBHOOK_NOT_FOUND) counts as removed, no other 404 does. */
async function deleteSubscription(this: IHookFunctions, id: string): Promise<void> {
  await leadChatRequest.call(this, {
    method: 'DELETE',
    path: `/webhooks/${encodeURIComponent(id)}`,
    notFoundCode: 'WEBHOOK_NOT_FOUND',
  });
}

/**
 * Removes the subscription this node registered and every other one for its URL (those `found` already, else found
 * now), but `keep`. A subscription already gone counts as removed.
 */
async function unsubscribe(this: IHookFunctions, keep?: string, found?: Array<{ id: string }>): Promise<void> {
  const data = this.getWorkflowStaticData('node') as SubscriptionData;
  const ids = new Set((found ?? (await subscriptionsForUrl.call(this))).map((subscription) => subscription.id));
  if (data.webhookId) ids.add(data.webhookId);
  if (keep) ids.delete(keep);
  for (const id of ids) await deleteSubscription.call(this, id);
  if (data.webhookId !== keep) {
    delete data.webhookId;
    delete data.webhookSecret;
  }
}

/**
 * Which event a delivery carries: the payload's `type`, which the signature covers. The `webhook-event` header is
 * not signed (Standard Webhooks signs only id, timestamp and body), so it never names the event: a signed reply
 * posted again under another header would pass for that event. A payload without a type is a reply (spec §2.6 has
 * no type field; every other event carries one). A name the trigger does not know is returned as it is.
 */
function eventOf(body: IDataObject): string {
  const type = typeof body.type === 'string' ? body.type.trim().toLowerCase().replace(/-/g, '_') : '';
  return type || 'reply';
}

/** What a trigger's record of deliveries taken is kept under: its workflow and its webhook. */
function triggerKey(this: IWebhookFunctions): string {
  const node = this.getNode();
  return `${this.getWorkflow().id ?? ''}/${node.webhookId ?? node.id}`;
}

export class LeadChatTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'LeadChat Trigger',
    name: 'leadChatTrigger',
    icon: { light: 'file:../LeadChat/leadchat.svg', dark: 'file:../LeadChat/leadchat.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle: '={{$parameter["events"].join(", ")}}',
    description:
      'Starts the workflow on LeadChat events: replies, incoming messages, hand-offs, goals reached, opt-outs, failed deliveries and auto-recharge',
    defaults: {
      name: 'LeadChat Trigger',
    },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      {
        name: 'leadChatApi',
        required: true,
      },
    ],
    webhooks: [
      {
        name: 'default',
        httpMethod: 'POST',
        responseMode: 'onReceived',
        path: 'webhook',
      },
    ],
    properties: [
      {
        displayName: 'Events',
        name: 'events',
        type: 'multiOptions',
        required: true,
        options: EVENTS.map((event) => ({ ...event })),
        default: ['reply'],
      },
      {
        displayName: 'Registration',
        name: 'registration',
        type: 'options',
        noDataExpression: true,
        options: [
          {
            name: 'Automatic',
            value: 'automatic',
            description: 'Subscribe this workflow on activation and unsubscribe on deactivation (LeadChat gateway)',
          },
          {
            name: 'Manual',
            value: 'manual',
            description: 'Paste the webhook URL into the LeadChat settings yourself',
          },
        ],
        default: 'automatic',
      },
      {
        displayName:
          "Copy this node's Production URL (above) into Settings > Custom Channel Webhook in LeadChat and save: replies are posted there. If the settings show a signing secret (whsec_…), put it into the credential's Webhook Signing Secret so every delivery is verified; without one, deliveries are accepted unsigned.",
        name: 'manualNotice',
        type: 'notice',
        default: '',
        displayOptions: { show: { registration: ['manual'] } },
      },
    ],
  };

  webhookMethods = {
    default: {
      async checkExists(this: IHookFunctions): Promise<boolean> {
        const data = this.getWorkflowStaticData('node') as SubscriptionData;
        if (this.getNodeParameter('registration', 'automatic') === 'manual') {
          // Switched from Automatic: an old subscription would keep receiving events nobody verifies.
          await unsubscribe.call(this);
          return true;
        }
        // Found by the URL, not only by the id stored: a subscription whose secret this node does not hold (its
        // static data was lost) cannot be verified, since the secret is shown only when it is made, so it goes.
        const found = await subscriptionsForUrl.call(this);
        const stored = data.webhookId ? found.find((subscription) => subscription.id === data.webhookId) : undefined;
        const current =
          stored !== undefined &&
          sameEvents(stored.events, selectedEvents.call(this)) &&
          Boolean(data.webhookSecret) &&
          // Disabled on the server, it would hear nothing: enabled again, it keeps its id and secret.
          (stored.status !== 'disabled' || (await enableSubscription.call(this, stored.id)));
        // Gone, for other events, or not this node's: start over with one fresh subscription.
        await unsubscribe.call(this, current ? stored.id : undefined, found);
        return current;
      },

      async create(this: IHookFunctions): Promise<boolean> {
        if (this.getNodeParameter('registration', 'automatic') === 'manual') return true;
        const events = selectedEvents.call(this);
        if (events.length === 0) {
          throw new NodeOperationError(this.getNode(), 'Select at least one event');
        }
        const response = await leadChatRequest.call(this, {
          method: 'POST',
          path: '/webhooks',
          body: { url: this.getNodeWebhookUrl('default'), events },
          notFoundHint: NO_SUBSCRIPTION_API,
        });
        const { id, secret } = response.body as Partial<CreateWebhookAnswer>;
        if (typeof id !== 'string' || typeof secret !== 'string') {
          throw new NodeOperationError(
            this.getNode(),
            'The server accepted the subscription but returned no id and secret',
            { description: NO_SUBSCRIPTION_API },
          );
        }
        const data = this.getWorkflowStaticData('node') as SubscriptionData;
        data.webhookId = id;
        data.webhookSecret = secret;
        return true;
      },

      async delete(this: IHookFunctions): Promise<boolean> {
        await unsubscribe.call(this);
        return true;
      },
    },
  };

  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    const req = this.getRequestObject();
    const manual = this.getNodeParameter('registration', 'automatic') === 'manual';
    let secret: string | undefined;
    if (manual) {
      const credentials = await this.getCredentials('leadChatApi');
      secret = String(credentials.webhookSecret ?? '').trim() || undefined;
    } else {
      secret = (this.getWorkflowStaticData('node') as SubscriptionData).webhookSecret;
    }

    // Manual registration without a secret accepts unsigned deliveries (the hosted service does not sign);
    // every other delivery must carry a valid, fresh Standard Webhooks signature.
    if (secret || !manual) {
      const verdict = secret
        ? verifySignature(
            secret,
            {
              id: req.header('webhook-id'),
              timestamp: req.header('webhook-timestamp'),
              signature: req.header('webhook-signature'),
              rawBody: req.rawBody,
            },
            Math.floor(Date.now() / 1000),
          )
        : { valid: false as const, reason: 'this trigger has no subscription secret; reactivate the workflow' };
      if (!verdict.valid) {
        const res = this.getResponseObject();
        res.status(401).json({ error: `Invalid webhook signature: ${verdict.reason}` });
        return { noWebhookResponse: true };
      }
    }

    const body = this.getBodyData();
    const event = eventOf(body);
    if (!isEvent(event) || !selectedEvents.call(this).includes(event)) {
      return { webhookResponse: { received: true, ignored: event } };
    }
    const deliveryId = req.header('webhook-id');
    const now = Math.floor(Date.now() / 1000);
    if (!takeDelivery(triggerKey.call(this), deliveryId, req.header('webhook-timestamp'), now)) {
      return { webhookResponse: { received: true, duplicate: deliveryId } };
    }
    const item: IDataObject = { event, ...(deliveryId ? { deliveryId } : {}), ...body };
    return { workflowData: [this.helpers.returnJsonArray([item])] };
  }
}
