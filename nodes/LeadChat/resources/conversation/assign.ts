import {
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeParameterResourceLocator,
} from 'n8n-workflow';

import { conversationIdField, readConversationId } from '../../shared/conversations';
import { forOperation } from '../../shared/display';
import { memberIdByEmail } from '../../shared/members';
import type { RunSettings } from '../../shared/types';
import { leadChatRequest } from '../../transport/request';

export const description = forOperation('conversation', 'assign', [
  ...conversationIdField,
  {
    displayName: 'Assign To',
    name: 'assignTo',
    type: 'options',
    options: [
      {
        name: 'Team Member',
        value: 'member',
        description: 'The conversation is theirs to answer',
      },
      {
        name: 'Nobody (Unassign)',
        value: 'nobody',
        description: "The conversation is nobody's until someone takes it",
      },
    ],
    default: 'member',
  },
  {
    displayName: 'Team Member',
    name: 'member',
    type: 'resourceLocator',
    default: { mode: 'list', value: '' },
    required: true,
    description: 'The owner or a member of the team who accepted the invitation',
    displayOptions: { show: { assignTo: ['member'] } },
    modes: [
      {
        displayName: 'From List',
        name: 'list',
        type: 'list',
        placeholder: 'Select a team member...',
        typeOptions: {
          searchListMethod: 'searchMembers',
          searchable: true,
        },
      },
      {
        displayName: 'By Email',
        name: 'email',
        type: 'string',
        placeholder: 'name@email.com',
        hint: 'The email the team member signs in with',
        validation: [
          {
            type: 'regex',
            properties: {
              regex: '^\\s*[^@\\s]+@[^@\\s]+\\s*$',
              errorMessage: 'Not an email address',
            },
          },
        ],
      },
      {
        displayName: 'By ID',
        name: 'id',
        type: 'string',
        placeholder: 'e.g. mem_V1StGXR8Z5jdHi6B',
        hint: "The member's ID, as in a conversation's assigneeId or a Hand-Off event's assignee",
      },
    ],
  },
]);

/** The member ID to send for one item: from the dropdown or as given, or looked up by email. */
async function readMemberId(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<string> {
  const raw = this.getNodeParameter('member', itemIndex, { mode: 'list', value: '' }) as
    | INodeParameterResourceLocator
    | string;
  const locator = typeof raw === 'object' && raw !== null ? raw : { mode: 'id', value: raw };
  const value = String(locator.value ?? '').trim();
  if (!value) {
    throw new NodeOperationError(this.getNode(), 'Team Member is empty', {
      itemIndex,
      description: 'Pick a team member, or give their email or ID. To unassign, set Assign To to Nobody.',
    });
  }
  if (locator.mode === 'email') return await memberIdByEmail.call(this, value, settings.retry, itemIndex);
  return value;
}

/**
 * POST /conversations/{id}/assign: the conversation is the team member's to answer, or nobody's. Outputs the
 * conversation, with its assigneeId.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number, settings: RunSettings): Promise<IDataObject> {
  const conversationId = readConversationId.call(this, itemIndex);
  const unassign = this.getNodeParameter('assignTo', itemIndex, 'member') === 'nobody';
  const memberId = unassign ? null : await readMemberId.call(this, itemIndex, settings);
  const response = await leadChatRequest.call(this, {
    method: 'POST',
    path: `/conversations/${encodeURIComponent(conversationId)}/assign`,
    body: { memberId },
    itemIndex,
    retry: settings.retry,
    notFoundHint:
      'Check the Conversation ID and the Team Member: the message says which of them this account does not have.',
  });
  return response.body;
}
