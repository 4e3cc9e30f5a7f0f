import { useEffect, useState } from 'preact/hooks';
import type { Credits, SubAccount } from '../../answers.js';
import { get } from '../../api.js';
import { CreditTable } from '../../components/credit-table.js';
import { Loading } from '../../components/load.js';
import { credits, ruleText } from './labels.js';

/** A sub-account's balance, rule and credit history (GET /v1/subaccounts/{id}/credits), newest first. */
export function History(props: { sub: SubAccount; version: number }) {
  const [history, setHistory] = useState<Credits | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    void get<Credits>(`/v1/subaccounts/${encodeURIComponent(props.sub.id)}/credits`).then((res) => {
      setHistory(res.ok ? res.data : undefined);
      setError(res.ok ? undefined : res.error);
    });
  }, [props.sub.id, props.version]);
  if (!history) return <Loading error={error} />;
  return (
    <>
      <dl class="facts">
        <dt>Sub-account</dt>
        <dd>{`${props.sub.name} (${props.sub.email})`}</dd>
        <dt>Balance</dt>
        <dd data-balance>{credits(history.balance)}</dd>
        <dt>Auto-recharge</dt>
        <dd>{ruleText(history.autoRecharge)}</dd>
      </dl>
      {history.transactions.length === 0 ? (
        <p>No credits granted or spent yet.</p>
      ) : (
        <CreditTable
          id="history"
          credits={credits}
          lines={history.transactions.map((t) => ({
            ...t,
            what: t.kind === 'grant' ? 'Grant' : 'Usage',
            note: t.description ?? '',
          }))}
        />
      )}
    </>
  );
}
