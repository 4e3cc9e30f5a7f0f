import { NodeOperationError } from 'n8n-workflow';

import { leadChatPaged, type ListedRecord } from '../transport/paginate';
import type { RetryPolicy } from '../transport/rateLimit';
import type { LeadChatContext } from '../transport/request';

/** A team member as GET /members answers it (the contract's Member; a server other than the gateway may say less). */
export type TeamMember = ListedRecord<'/members'>;

/** Only a member who accepted the invitation takes conversations; the owner is always active. */
export function isActiveMember(member: TeamMember): boolean {
  return member.status === undefined || member.status === 'active';
}

/**
 * How a member shows in a dropdown: "Maya Lopez (maya@example.com) · agent", so namesakes can be told apart, and
 * "· away" after it while they are away: one may still be chosen, knowing they are not there to answer.
 */
export function memberLabel(member: TeamMember): string {
  const name = typeof member.name === 'string' && member.name.trim() ? member.name.trim() : String(member.id);
  const email = typeof member.email === 'string' && member.email ? ` (${member.email})` : '';
  const role = typeof member.role === 'string' && member.role ? ` · ${member.role}` : '';
  const away = member.availability === 'away' ? ' · away' : '';
  return `${name}${email}${role}${away}`;
}

const CANNOT_LIST = 'This server cannot list your team members. Choose "By ID" and paste the member ID from the app.';

/** The account's team, the owner included, every page of GET /members. */
export async function teamMembers(
  this: LeadChatContext,
  retry: RetryPolicy,
  itemIndex?: number,
): Promise<TeamMember[]> {
  const { records, statusCode } = await (leadChatPaged<'/members'>).call(this, {
    path: '/members',
    accept: [404, 405],
    itemIndex,
    retry,
  });
  if (statusCode === 404 || statusCode === 405) {
    throw new NodeOperationError(this.getNode(), CANNOT_LIST, { itemIndex });
  }
  return records;
}

/**
 * The ID of the team member with this email (compared as the API stores it: trimmed, lower case). Nobody with it,
 * or somebody who has not accepted the invitation yet, fails the item with what to do.
 */
export async function memberIdByEmail(
  this: LeadChatContext,
  email: string,
  retry: RetryPolicy,
  itemIndex: number,
): Promise<string> {
  const wanted = email.trim().toLowerCase();
  const members = await teamMembers.call(this, retry, itemIndex);
  const member = members.find((m) => typeof m.email === 'string' && m.email.trim().toLowerCase() === wanted);
  if (!member || member.id === undefined) {
    throw new NodeOperationError(this.getNode(), `No one on the team has the email ${wanted}`, {
      itemIndex,
      description:
        'Only the owner and the members of this account take conversations: invite them to the team first, or pick a member from the list.',
    });
  }
  if (!isActiveMember(member)) {
    throw new NodeOperationError(this.getNode(), `${memberLabel(member)} has not accepted the invitation yet`, {
      itemIndex,
      description:
        'Only an active member takes conversations. Once they open their invitation link and set a password, assign again.',
    });
  }
  return String(member.id);
}
