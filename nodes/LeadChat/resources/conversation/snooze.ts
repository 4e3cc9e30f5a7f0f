import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { conversationIdField, readConversationId } from '../../shared/conversations';
import { forOperation } from '../../shared/display';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('conversation', 'snooze', [
  ...conversationIdField,
  {
    displayName: 'Action',
    name: 'snoozeAction',
    type: 'options',
    options: [
      {
        name: 'Snooze Until',
        value: 'snooze',
        description: 'Hide the conversation from the inbox until a time; the contact writing brings it back at once',
      },
      {
        name: 'Wake Now',
        value: 'wake',
        description: 'Bring a snoozed conversation back to the inbox now',
      },
    ],
    default: 'snooze',
  },
  {
    displayName: 'Until',
    name: 'until',
    type: 'dateTime',
    default: '',
    required: true,
    description:
      "When the conversation comes back, at most 365 days ahead: in the workflow's time zone unless it carries its own offset, e.g. {{ $now.plus(1, 'month') }}",
    displayOptions: { show: { snoozeAction: ['snooze'] } },
  },
]);

/** An offset the time carries: Z, +01:00, -0500. */
const OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;

/** The UTC offset of `zone` at `at` (epoch ms), in ms. */
function offsetOf(zone: string, at: number): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(at)
      .map((p) => [p.type, Number(p.value)]),
  );
  return (
    Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) - (at - (at % 1000))
  );
}

/**
 * The time to send, with its offset: as given when it has one (an expression's ISO time), else the wall time the date
 * picker gives, read in the workflow's time zone. Undefined when it is no time at all.
 */
export function untilWithOffset(value: string, zone: string): string | undefined {
  const text = value.trim();
  if (OFFSET.test(text)) return Number.isNaN(Date.parse(text)) ? undefined : text;
  const wall = Date.parse(`${text}Z`);
  if (Number.isNaN(wall)) return undefined;
  // The offset at the wall time read as UTC, then at the instant that gives: right across a change of the clocks.
  const at = wall - offsetOf(zone, wall - offsetOf(zone, wall));
  return new Date(at).toISOString();
}

/**
 * POST /conversations/{id}/snooze (or DELETE, to wake it now). Outputs the conversation, with its snoozedUntil.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const conversationId = readConversationId.call(this, itemIndex);
  const path = `/conversations/${encodeURIComponent(conversationId)}/snooze`;
  const notFoundHint = 'Check the Conversation ID: this account has no such conversation.';
  if (this.getNodeParameter('snoozeAction', itemIndex, 'snooze') === 'wake') {
    const response = await leadChatRequest.call(this, {
      method: 'DELETE',
      path,
      itemIndex,
      retry: settings.retry,
      notFoundHint,
    });
    return response.body;
  }
  const raw = String(this.getNodeParameter('until', itemIndex, '') ?? '');
  const until = untilWithOffset(raw, this.getTimezone());
  if (!until) {
    throw new NodeOperationError(
      this.getNode(),
      raw.trim() ? `Until is not a date and time: ${raw}` : 'Until is empty',
      {
        itemIndex,
        description: "Pick a date and time, or map one such as {{ $now.plus(1, 'month') }}.",
      },
    );
  }
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path,
    body: { until },
    itemIndex,
    retry: settings.retry,
    notFoundHint,
  });
  return response.body;
}
