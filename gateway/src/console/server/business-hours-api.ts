import { Router } from 'express';
import { clockNow } from '../../clock.js';
import type { Gateway } from '../../context.js';
import { dayAndTime, hoursAt } from '../../domain/business-time.js';
import { reminderAfter } from '../../domain/handoff-waits.js';
import type { SignedIn } from '../../domain/sessions.js';
import { signedInOnly } from '../../http/middleware/session.js';
import { route, routerRoutes } from '../../http/route.js';

/** The longest a page waits before asking again: a browser's timer holds no more than about 24 days. */
const MAX_WAIT_MS = 2 ** 31 - 1;

/**
 * `GET /console/api/business-hours`: whether the team is out of its business hours now, for the inbox of every role
 * (only admins read the settings). `back` is when they open again as the team's clocks read it ("Mon 09:00");
 * `reminders` whether the team is reminded of a contact who waits (handoffReminderAfter); `changesInMs` how long
 * until they open or close, when the page should ask again; null without hours. Times
 * are the gateway's own, so the page never judges the hours by its own clock or zone.
 */
export function businessHoursApi(gw: Gateway, mountedAt: string): Router {
  const router = Router();
  const api = routerRoutes(router, mountedAt, { 'signed-in': [signedInOnly(gw)] });
  route(api, '/business-hours', {
    get: (_req, res) => {
      const { account } = res.locals.signedIn as SignedIn;
      const at = clockNow();
      const now = hoursAt(account.businessHours, at);
      res.set('Cache-Control', 'no-store').json({
        outOfHours: now?.outOfHours ?? false,
        back: now?.backAt ? dayAndTime(account.businessHours!.timezone, now.backAt) : null,
        reminders: reminderAfter(account) !== null,
        changesInMs: now ? Math.min(now.changesAt - at, MAX_WAIT_MS) : null,
      });
    },
  });
  return router;
}
