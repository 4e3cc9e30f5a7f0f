/**
 * Who may call each route of the gateway, in one table: `route()` refuses to register a route the table does not
 * list and puts the guard of its level before its handlers, and the test of every route calls each one as every
 * kind of caller and compares the answer with this table. The API key acts as the account's owner.
 */
export const ACCESS_LEVELS = {
  public:
    "anyone: the request proves itself otherwise (a provider's signature, an invitation's token) or tells nothing secret",
  team: 'the API key, and a console session of the owner, an admin or an agent',
  admins: 'the API key, and a console session of the owner or an admin; an agent gets 403 FORBIDDEN',
  'signed-in': 'a console session of anyone on the team',
  operator: 'the admin token',
  scraper: 'the admin token or LEADCHAT_METRICS_TOKEN',
} as const;

export type Access = keyof typeof ACCESS_LEVELS;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Every route, by its full path as Express matches it, and each of its methods' level. */
export const ROUTE_ACCESS: Readonly<Record<string, Readonly<Partial<Record<HttpMethod, Access>>>>> = {
  // The operator's probes and metrics.
  '/healthz': { GET: 'public' },
  '/readyz': { GET: 'public' },
  '/metrics': { GET: 'scraper' },

  // The API: what the whole team works with.
  '/v1/openapi.json': { GET: 'public' },
  '/v1/incoming_custom_channel_message': { POST: 'team' },
  '/v1/send_custom_channel_message': { POST: 'team' },
  '/v1/messages/:id': { GET: 'team' },
  '/v1/messages/:id/retry': { POST: 'team' },
  '/v1/media/:id': { GET: 'team' },
  '/v1/contacts': { GET: 'team', POST: 'team' },
  '/v1/contacts/:id': { GET: 'team', PATCH: 'team', DELETE: 'admins' },
  '/v1/contacts/:id/merge': { POST: 'admins' },
  '/v1/contacts/:id/export': { GET: 'admins' },
  '/v1/contacts/:id/messages': { GET: 'team', POST: 'team' },
  '/v1/contacts/:id/bot': { POST: 'team' },
  '/v1/lists': { GET: 'team', POST: 'team' },
  '/v1/lists/:listId': { GET: 'team', PATCH: 'team', DELETE: 'admins' },
  '/v1/lists/:listId/contacts': { GET: 'team', POST: 'team' },
  '/v1/lists/:listId/contacts/:contactId': { DELETE: 'team' },
  // The whole list at once, for a spreadsheet or another CRM: as a contact's export, the owner's and admins'.
  '/v1/lists/:listId/export': { GET: 'admins' },
  '/v1/lists/:listId/imports': { GET: 'team', POST: 'team' },
  '/v1/imports/:id': { GET: 'team' },
  '/v1/conversations': { GET: 'team' },
  '/v1/conversations/retry-failed': { POST: 'team' },
  '/v1/conversations/:id': { GET: 'team' },
  '/v1/conversations/:id/retry-failed': { POST: 'team' },
  '/v1/conversations/:id/assign': { POST: 'team' },
  '/v1/conversations/:id/snooze': { POST: 'team', DELETE: 'team' },
  '/v1/conversations/:id/labels': { POST: 'team' },
  '/v1/conversations/:id/labels/:label': { DELETE: 'team' },
  '/v1/labels': { GET: 'team' },
  '/v1/conversations/:id/read': { POST: 'team' },
  '/v1/conversations/:id/notes': { GET: 'team', POST: 'team' },
  // A note's author deletes it, as do the owner and admins: the route checks the author (domain/notes.ts).
  '/v1/conversations/:id/notes/:noteId': { DELETE: 'team' },
  // Every member saves replies and uses them; their author changes and deletes one, as do the owner and admins: the
  // route checks the author (domain/saved-replies.ts).
  '/v1/saved-replies': { GET: 'team', POST: 'team' },
  '/v1/saved-replies/:id': { GET: 'team', PATCH: 'team', DELETE: 'team' },
  '/v1/campaigns': { GET: 'team', POST: 'admins' },
  '/v1/campaigns/opening-price': { POST: 'team' },
  '/v1/campaigns/:id': { GET: 'team', PATCH: 'admins' },
  '/v1/campaigns/:id/bot/test': { POST: 'team' },
  '/v1/campaigns/:id/reach-existing': { POST: 'admins' },
  '/v1/campaigns/:id/preview': { GET: 'team' },
  '/v1/campaigns/:id/openings': { GET: 'team' },
  '/v1/campaigns/:id/openings/retry-failed': { POST: 'team' },
  '/v1/campaigns/:id/unanswered': { GET: 'team' },
  '/v1/campaigns/:id/unreachable': { GET: 'team' },
  '/v1/campaigns/:id/funnel': { GET: 'team' },
  '/v1/members': { GET: 'team', POST: 'admins' },
  '/v1/members/:id': { GET: 'team', PATCH: 'admins', DELETE: 'admins' },
  '/v1/members/:id/invite': { POST: 'admins' },
  // Everyone sets their own; the owner and admins anyone's: the route checks who (domain/availability.ts).
  '/v1/members/:id/availability': { PUT: 'team' },
  '/v1/credits': { GET: 'team' },
  '/v1/credits/history': { GET: 'team' },

  // The API: what only admins and the owner change.
  '/v1/credits/low-balance': { PUT: 'admins' },
  '/v1/subaccounts': { GET: 'admins' },
  '/v1/subaccounts/:id': { DELETE: 'admins' },
  '/v1/subaccounts/:id/deletion': { GET: 'admins' },
  '/v1/subaccounts/:id/credits': { GET: 'admins' },
  '/v1/subaccounts/:id/credits/history': { GET: 'admins' },
  '/v1/subaccounts/credits': { POST: 'admins' },
  '/v1/subaccounts/auto-recharge': { PUT: 'admins' },
  '/v1/settings': { GET: 'admins', PUT: 'admins' },
  '/v1/settings/bot': { GET: 'admins', PUT: 'admins' },
  '/v1/settings/webhook-secret': { POST: 'admins' },
  '/v1/settings/webhook-test': { POST: 'admins' },
  '/v1/api-key': { POST: 'admins' },
  // Who changed what: as the settings, the owner's and admins'.
  '/v1/audit-log': { GET: 'admins' },
  '/v1/webhooks': { GET: 'admins', POST: 'admins' },
  '/v1/webhooks/:id': { GET: 'admins', DELETE: 'admins' },
  '/v1/webhooks/:id/enable': { POST: 'admins' },
  '/v1/channels': { GET: 'admins' },
  '/v1/channels/twilio': { PUT: 'admins', DELETE: 'admins' },
  '/v1/channels/whatsapp': { PUT: 'admins', DELETE: 'admins' },
  '/v1/channels/messenger': { PUT: 'admins', DELETE: 'admins' },
  '/v1/channels/instagram': { PUT: 'admins', DELETE: 'admins' },
  '/v1/channels/:channel/incoming': { POST: 'admins' },

  // The providers' webhooks: each proven by the provider's signature with the account's own secret.
  '/v1/channels/twilio/:accountId/incoming': { POST: 'public' },
  '/v1/channels/twilio/:accountId/status': { POST: 'public' },
  '/v1/channels/whatsapp/:accountId/webhook': { GET: 'public', POST: 'public' },
  '/v1/channels/messenger/:accountId/webhook': { GET: 'public', POST: 'public' },
  '/v1/channels/instagram/:accountId/webhook': { GET: 'public', POST: 'public' },

  // The operator's API.
  '/admin/v1/accounts': { GET: 'operator', POST: 'operator' },
  '/admin/v1/accounts/:id': { DELETE: 'operator' },
  '/admin/v1/accounts/:id/deletion': { GET: 'operator' },
  '/admin/v1/accounts/:id/api-key': { POST: 'operator' },
  '/admin/v1/accounts/:id/password': { PUT: 'operator' },
  '/admin/v1/accounts/:id/members': { POST: 'operator' },
  '/admin/v1/accounts/:id/credits/usage': { POST: 'operator' },
  '/admin/v1/jobs': { GET: 'operator' },
  '/admin/v1/jobs/:id/retry': { POST: 'operator' },
  '/admin/v1/backup': { POST: 'operator' },
  '/admin/v1/clock': { POST: 'operator' },

  // The console's session: signing in and out needs none; an invitation's token proves itself.
  '/console/api/session': { POST: 'public', GET: 'signed-in', DELETE: 'public' },
  '/console/api/invites/:token': { GET: 'public', POST: 'public' },
  // The console's live inbox: the session's account's changes as Server-Sent Events.
  '/console/api/stream': { GET: 'signed-in' },
  // Whether the team is out of its business hours, for the inbox of every role (the settings are the admins').
  '/console/api/business-hours': { GET: 'signed-in' },
};

/** The level of a route's method; undefined when the table does not list it. */
export const accessOf = (fullPath: string, method: HttpMethod): Access | undefined => ROUTE_ACCESS[fullPath]?.[method];
