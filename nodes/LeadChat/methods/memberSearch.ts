import type { ILoadOptionsFunctions, INodeListSearchResult, INodePropertyOptions } from 'n8n-workflow';

import { isActiveMember, memberLabel, teamMembers } from '../shared/members';
import { DROPDOWN_RETRY, searchRecords } from './searchRecords';

/**
 * The team members who can take a conversation (the owner and every member who accepted the invitation), every
 * page of GET /members, shown as "Name (email) · role" and searched by name or email.
 */
export async function searchMembers(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
  return (searchRecords<'/members'>).call(
    this,
    { path: '/members', plural: 'team members', singular: 'member', keep: isActiveMember, label: memberLabel },
    filter,
  );
}

/** The Assignee filter of Conversation › Get Many: the unassigned ones, or one active member's. */
export async function getAssignees(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  const members = (await teamMembers.call(this, DROPDOWN_RETRY)).filter(
    (member) => member.id !== undefined && isActiveMember(member),
  );
  return [
    { name: 'Nobody (Unassigned)', value: 'none' },
    ...members
      .map((member) => ({ name: memberLabel(member), value: String(member.id) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  ];
}
