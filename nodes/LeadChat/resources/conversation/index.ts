import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../shared/types';
import * as addLabels from './addLabels';
import * as addNote from './addNote';
import * as assign from './assign';
import * as get from './get';
import * as getAll from './getAll';
import * as handOff from './handOff';
import * as removeLabel from './removeLabel';
import * as resumeBot from './resumeBot';
import * as sendAsTeamMember from './sendAsTeamMember';
import * as snooze from './snooze';

export const operations: Record<string, Operation> = {
  addLabels,
  addNote,
  assign,
  get,
  getAll,
  handOff,
  removeLabel,
  resumeBot,
  sendAsTeamMember,
  snooze,
};

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['conversation'] } },
    options: [
      {
        name: 'Add Labels',
        value: 'addLabels',
        action: 'Add labels to a conversation',
        description: 'Label a conversation (Hot lead, pricing, demo booked…) for the team and workflows to find it by',
      },
      {
        name: 'Add Note',
        value: 'addNote',
        action: 'Add a note to a conversation',
        description: 'Leave the team a private note on a conversation; the contact never sees it',
      },
      {
        name: 'Assign',
        value: 'assign',
        action: 'Assign a conversation to a team member',
        description: "Make a conversation a team member's to answer, or nobody's",
      },
      {
        name: 'Get',
        value: 'get',
        action: 'Get a conversation',
        description: 'Get a conversation by ID',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        action: 'Get many conversations',
        description:
          'List conversations, newest activity first, filtered by status, campaign, channel, assignee or label',
      },
      {
        name: 'Hand Off',
        value: 'handOff',
        action: 'Hand off a conversation to the team',
        description: "Turn the AI bot off for a contact's conversations so a person can take over",
      },
      {
        name: 'Remove Label',
        value: 'removeLabel',
        action: 'Remove a label from a conversation',
        description: 'Take one label off a conversation',
      },
      {
        name: 'Resume Bot',
        value: 'resumeBot',
        action: 'Resume the bot in a conversation',
        description: "Give a contact's conversations back to the AI bot after a hand-off",
      },
      {
        name: 'Send as Team Member',
        value: 'sendAsTeamMember',
        action: 'Send a message as a team member',
        description: "Reply to a contact on the conversation's channel as a person; the bot stays silent",
      },
      {
        name: 'Snooze',
        value: 'snooze',
        action: 'Snooze a conversation until a time',
        description:
          'Hide a conversation from the inbox until a time (it comes back when the contact writes), or wake it now',
      },
    ],
    default: 'getAll',
  },
  ...addLabels.description,
  ...addNote.description,
  ...assign.description,
  ...get.description,
  ...getAll.description,
  ...handOff.description,
  ...removeLabel.description,
  ...resumeBot.description,
  ...sendAsTeamMember.description,
  ...snooze.description,
];
