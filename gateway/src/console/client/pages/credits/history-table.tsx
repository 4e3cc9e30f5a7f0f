import { useState } from 'preact/hooks';
import type { CreditEntry, PageOf } from '../../answers.js';
import { get } from '../../api.js';
import { Loading } from '../../components/load.js';
import { useLiveReload } from '../../live-reload.js';
import { credits, entryText } from './labels.js';

const PAGE = 50;

/**
 * The account's credit history (GET /v1/credits/history), newest first, a page at a time: grants, recharges and
 * what each message cost, by its kind and channel. Read again from the top when the stream tells credits changed.
 */
export function HistoryTable() {
  const [entries, setEntries] = useState<CreditEntry[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const read = async (cursor?: string) => {
    const res = await get<PageOf<CreditEntry>>(
      `/v1/credits/history?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    setError(res.ok ? undefined : res.error);
    if (!res.ok || !res.data) return;
    const page = res.data;
    setEntries((before) => (cursor ? [...(before ?? []), ...page.data] : page.data));
    setNext(page.nextCursor);
  };
  useLiveReload(() => read(), [], { concerns: (e) => e.event === 'credits.updated' });
  const more = async () => {
    setBusy(true);
    await read(next ?? undefined);
    setBusy(false);
  };

  if (!entries) return <Loading error={error} />;
  if (entries.length === 0) return <p>No credits granted or spent yet.</p>;
  return (
    <>
      <div class="table-scroll" role="region" aria-labelledby="credit-history-caption" tabIndex={0}>
        <table class="data-table credit-history">
          <caption id="credit-history-caption">Credit history, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col" class="num">
                Amount
              </th>
              <th scope="col" class="num">
                Balance after
              </th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id} data-kind={e.kind}>
                <td>{new Date(e.createdAt).toLocaleString()}</td>
                <td>{entryText(e)}</td>
                <td class="num">{(e.amount > 0 ? '+' : '') + credits(e.amount)}</td>
                <td class="num">{credits(e.balance)}</td>
                <td class="wrap">{e.kind === 'usage' ? '' : (e.description ?? '')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {next && (
        <p>
          <button type="button" class="secondary" disabled={busy} onClick={() => void more()}>
            Show older entries
          </button>
        </p>
      )}
      <p class="error" role="alert">
        {entries && error ? error : ''}
      </p>
    </>
  );
}
