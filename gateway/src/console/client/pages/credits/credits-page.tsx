import { canAct } from '../../../../api-contract.js';
import { useState } from 'preact/hooks';
import type { Credits } from '../../answers.js';
import { get } from '../../api.js';
import { Panel } from '../../components/form.js';
import { Loading } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import { useLiveReload } from '../../live-reload.js';
import type { SessionInfo } from '../../session.js';
import { ruleText } from '../agency/labels.js';
import { HistoryTable } from './history-table.js';
import { credits } from './labels.js';
import { LowBalanceForm } from './low-balance-form.js';

/**
 * Credits, for every account and every role: the balance and what messages cost, the low-balance warning, and the
 * history of grants, recharges and what was spent, each message by its kind. It follows grants as they are made
 * (the stream's credits.updated). Only a sub-account pays for its messages; any other account is told so.
 */
export function CreditsPage(props: { session: SessionInfo }) {
  const [c, setCredits] = useState<Credits | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useLiveReload(
    async () => {
      const res = await get<Credits>('/v1/credits?transactions=false');
      setError(res.ok ? undefined : res.error);
      if (res.ok) setCredits(res.data);
    },
    [],
    { concerns: (e) => e.event === 'credits.updated' },
  );
  if (!c)
    return (
      <>
        <PageTitle>Credits</PageTitle>
        <Loading error={error} />
      </>
    );
  const admin = canAct(props.session.member.role, 'admin');
  const charged = c.prices !== undefined;
  return (
    <>
      <PageTitle>Credits</PageTitle>
      <Panel title="Balance" id="balance-heading">
        <dl class="facts">
          <dt>Balance</dt>
          <dd data-balance>{credits(c.balance)} credits</dd>
          {c.prices && (
            <>
              <dt>Prices</dt>
              <dd>
                Bot reply {credits(c.prices.botReply)}, SMS {credits(c.prices.smsSegment)} a segment, WhatsApp{' '}
                {credits(c.prices.whatsapp)}, Messenger {credits(c.prices.messenger)} and Instagram{' '}
                {credits(c.prices.instagram)} a message
              </dd>
              <dt>Granted by</dt>
              <dd>{c.agency ? `${c.agency.name} (${c.agency.email})` : 'Your agency'}</dd>
              <dt>Auto-recharge</dt>
              <dd>{ruleText(c.autoRecharge)}</dd>
            </>
          )}
        </dl>
        {charged ? (
          c.canSend === false && (
            <p class="warning">
              The balance pays for no message: ask your agency for credits, then retry the failed messages from the
              Inbox or a campaign’s page.
            </p>
          )
        ) : (
          <p>
            Messages from this account are not charged: only an agency’s sub-accounts pay for what they send, from
            credits the agency grants.
          </p>
        )}
      </Panel>
      {charged && (
        <Panel title="Low-balance warning" id="low-balance-heading">
          <LowBalanceForm credits={c} admin={admin} onSaved={(saved) => setCredits({ ...c, ...saved })} />
        </Panel>
      )}
      <Panel title="History" id="history-heading">
        <HistoryTable granted={props.session.account.type === 'agency'} />
      </Panel>
    </>
  );
}
