import type { Gateway } from '../../context.js';
import { deleteAccount, publicDeletion, subAccountDeletion } from '../../domain/account-deletion.js';
import { setAutoRecharge } from '../../domain/auto-recharge.js';
import { historyPage } from '../../domain/credit-history.js';
import { creditsOf } from '../../domain/credits-answer.js';
import { grantCredits, publicEntry, setLowBalanceThreshold, type HistoryLine } from '../../domain/credits.js';
import {
  publicSubAccount,
  requireAgency,
  subAccountCredits,
  subAccountHistory,
  subAccountsOf,
} from '../../domain/subaccounts.js';
import { idempotentAnswer } from '../idempotent-answer.js';
import { keyInHeaderOnly } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountPage } from '../paging.js';
import { accountOf, auditBy, parse, route, sendDurable, type Routes } from '../route.js';
import type { Placed } from '../../store/store.js';
import { autoRecharge, creditGrant, creditHistoryQuery, creditsQuery, lowBalance } from '../schemas.js';

/** Credits: the account's own balance for everyone of the team; the agency's sub-accounts for admins and the owner. */
export function creditsRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/subaccounts/credits', {
    post: [
      keyInHeaderOnly,
      jsonBody(),
      async (req, res) => {
        const input = parse(creditGrant, req.body);
        const account = accountOf(res);
        const { status, response } = await idempotentAnswer(gw, req, res, account.id, 200, (keep) =>
          grantCredits(gw, account, input, req.get('idempotency-key'), keep),
        );
        res.status(status).json(response);
      },
    ],
  });

  route(v1, '/subaccounts/auto-recharge', {
    put: [
      keyInHeaderOnly,
      jsonBody(),
      async (req, res) => {
        res.json(await setAutoRecharge(gw, accountOf(res), parse(autoRecharge, req.body)));
      },
    ],
  });

  route(v1, '/subaccounts', {
    get: accountPage(gw, (agency, _req, page) => subAccountsOf(gw.store, agency, page), publicSubAccount),
  });

  // The operator's deletion, asked by the agency of its own sub-account: gone at once, its data in the background.
  route(v1, '/subaccounts/:id', {
    delete: async (req, res) => {
      const agency = accountOf(res);
      requireAgency(agency);
      const deletion = await deleteAccount(gw.store, String(req.params.id), { id: agency.id, by: auditBy(res) });
      res.status(deletion.status === 'done' ? 200 : 202).json(publicDeletion(deletion));
    },
  });

  route(v1, '/subaccounts/:id/deletion', {
    get: async (req, res) => {
      const agency = accountOf(res);
      requireAgency(agency);
      await sendDurable(gw, res, publicDeletion(await subAccountDeletion(gw.store, agency.id, String(req.params.id))));
    },
  });

  route(v1, '/subaccounts/:id/credits', {
    get: async (req, res) => {
      await sendDurable(
        gw,
        res,
        await subAccountCredits(
          gw.store,
          accountOf(res),
          String(req.params.id),
          gw.config.prices,
          parse(creditsQuery, req.query, 'query'),
        ),
      );
    },
  });

  const entry = ({ doc }: Placed<HistoryLine>) => publicEntry(doc);
  route(v1, '/subaccounts/:id/credits/history', {
    get: accountPage(
      gw,
      (agency, req, page, filter) => subAccountHistory(gw.store, agency, String(req.params.id), filter, page),
      entry,
      creditHistoryQuery,
    ),
  });

  route(v1, '/credits/history', {
    get: accountPage(
      gw,
      (account, _req, page, filter) => historyPage(gw.store, account, filter, page),
      entry,
      creditHistoryQuery,
    ),
  });

  route(v1, '/credits/low-balance', {
    put: [
      jsonBody(),
      async (req, res) => {
        res.json(await setLowBalanceThreshold(gw, accountOf(res).id, parse(lowBalance, req.body).threshold));
      },
    ],
  });

  route(v1, '/credits', {
    get: async (req, res) => {
      const query = parse(creditsQuery, req.query, 'query');
      const credits = await creditsOf(gw.store, accountOf(res).id, gw.config.prices, query);
      await sendDurable(gw, res, credits);
    },
  });
}
