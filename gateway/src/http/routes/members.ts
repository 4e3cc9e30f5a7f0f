import { INVITE_PATH } from '../../api-contract.js';
import type { Gateway } from '../../context.js';
import {
  getMember,
  inviteMember,
  membersOf,
  publicMember,
  reinvite,
  updateMember,
  type Invitation,
} from '../../domain/members.js';
import { removeMember } from '../../domain/member-removal.js';
import { setAvailability } from '../../domain/availability.js';
import { iso } from '../../ids.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountPage } from '../paging.js';
import { publicBase } from '../public-base.js';
import { accountOf, actorOf, auditBy, parse, route, sendDurable, type Routes } from '../route.js';
import { memberAvailability, memberInvite, memberUpdate } from '../schemas.js';

/**
 * A member as the answer that invites them shows them: with the invitation's link, shown this once. The token rides
 * in the link's fragment, which no server or log ever sees.
 */
export const invitationView = (gw: Gateway, { member, token }: Invitation) => ({
  ...publicMember(member),
  inviteUrl: `${publicBase(gw.config)}${INVITE_PATH}#${token}`,
  inviteExpiresAt: iso(member.inviteExpiresAt!),
});

/**
 * The account's team. Everyone of it sees who is on it (to assign a conversation); admins and the owner invite,
 * change and remove members. An invitation's link is in the answer that creates it, and nowhere after.
 */
export function membersRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/members', {
    get: accountPage(
      gw,
      (account, _req, page) => membersOf(gw.store, account, page),
      (m) => publicMember('doc' in m ? m.doc : m),
    ),
    post: [
      jsonBody(),
      async (req, res) => {
        const invitation = await inviteMember(gw, accountOf(res), parse(memberInvite, req.body), auditBy(res));
        res.status(201).set('Cache-Control', 'no-store').json(invitationView(gw, invitation));
      },
    ],
  });
  route(v1, '/members/:id', {
    get: async (req, res) => {
      await sendDurable(gw, res, publicMember(await getMember(gw.store, accountOf(res), String(req.params.id))));
    },
    patch: [
      jsonBody(),
      async (req, res) => {
        res.json(
          publicMember(
            await updateMember(gw, accountOf(res), String(req.params.id), parse(memberUpdate, req.body), auditBy(res)),
          ),
        );
      },
    ],
    delete: [
      async (req, res) => {
        await removeMember(gw, accountOf(res), String(req.params.id), auditBy(res));
        res.status(204).end();
      },
    ],
  });
  route(v1, '/members/:id/invite', {
    post: [
      async (req, res) => {
        res
          .set('Cache-Control', 'no-store')
          .json(invitationView(gw, await reinvite(gw, accountOf(res), String(req.params.id), auditBy(res))));
      },
    ],
  });
  route(v1, '/members/:id/availability', {
    put: [
      jsonBody(),
      async (req, res) => {
        const { availability } = parse(memberAvailability, req.body);
        const id = String(req.params.id);
        res.json(publicMember(await setAvailability(gw, accountOf(res), actorOf(res), id, availability, auditBy(res))));
      },
    ],
  });
}
