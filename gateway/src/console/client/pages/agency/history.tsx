import type { SubAccount } from '../../answers.js';
import { HistoryTable } from '../credits/history-table.js';
import { credits, ruleText } from './labels.js';

/**
 * A sub-account's balance, rule and credit history, newest first, a page at a time
 * (GET /v1/subaccounts/{id}/credits/history): one that has sent for months holds more entries than a page should.
 */
export function History(props: { sub: SubAccount; version: number }) {
  return (
    <>
      <dl class="facts">
        <dt>Sub-account</dt>
        <dd>{`${props.sub.name} (${props.sub.email})`}</dd>
        <dt>Balance</dt>
        <dd data-balance>{credits(props.sub.balance)}</dd>
        <dt>Auto-recharge</dt>
        <dd>{ruleText(props.sub.autoRecharge)}</dd>
      </dl>
      <HistoryTable
        key={props.sub.id}
        path={`/v1/subaccounts/${encodeURIComponent(props.sub.id)}/credits/history`}
        version={props.version}
        credits={credits}
      />
    </>
  );
}
