import type { RequestHandler } from 'express';
import { canAct } from '../../api-contract.js';
import { forbidden } from '../../errors.js';
import { actorOf } from '../route.js';

/**
 * Lets through only members whose role may do what `least` may: agents work the inbox, admins and the owner
 * everything else (settings, channels, webhooks, members, campaign changes, agency credits).
 */
export function requireRole(least: 'admin'): RequestHandler {
  return (_req, res, next) => {
    const { role } = actorOf(res);
    if (!canAct(role, least)) {
      throw forbidden('FORBIDDEN', `This needs an admin or the account's owner; your role is ${role}`);
    }
    next();
  };
}

export const adminOnly = requireRole('admin');
