import { useState } from 'preact/hooks';
import type { CreditEntry, PageOf } from '../../answers.js';
import { get } from '../../api.js';
import { CreditTable } from '../../components/credit-table.js';
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
      <CreditTable
        id="credit-history"
        credits={credits}
        lines={entries.map((e) => ({
          ...e,
          what: entryText(e),
          note: e.kind === 'usage' ? '' : (e.description ?? ''),
        }))}
      />
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
