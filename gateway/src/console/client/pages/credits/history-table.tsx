import { useState } from 'preact/hooks';
import type { CreditEntry, PageOf } from '../../answers.js';
import { get } from '../../api.js';
import { CreditTable } from '../../components/credit-table.js';
import { Loading } from '../../components/load.js';
import { useLiveReload } from '../../live-reload.js';
import { credits, entryText } from './labels.js';
import { Button } from '../../components/button.js';

const PAGE = 50;

/**
 * A credit history, newest first, a page at a time: grants, recharges and what each message cost, by its kind and
 * channel. The account's own (GET /v1/credits/history) unless `path` names a sub-account's; read again from the top
 * when the stream tells credits changed, or when `version` changes (the agency granted).
 */
export function HistoryTable(props: { path?: string; version?: number; credits?: (n: number) => string }) {
  const path = props.path ?? '/v1/credits/history';
  const shown = props.credits ?? credits;
  const [entries, setEntries] = useState<CreditEntry[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const read = async (cursor?: string) => {
    const res = await get<PageOf<CreditEntry>>(
      `${path}?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    setError(res.ok ? undefined : res.error);
    if (!res.ok || !res.data) return;
    const page = res.data;
    setEntries((before) => (cursor ? [...(before ?? []), ...page.data] : page.data));
    setNext(page.nextCursor);
  };
  useLiveReload(() => read(), [path, props.version], { concerns: (e) => e.event === 'credits.updated' });
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
        credits={shown}
        lines={entries.map((e) => ({
          ...e,
          what: entryText(e),
          note: e.kind === 'usage' ? '' : (e.description ?? ''),
        }))}
      />
      {next && (
        <p>
          <Button type="button" class="secondary" unavailable={busy} onClick={() => void more()}>
            Show older entries
          </Button>
        </p>
      )}
      <p class="error" role="alert">
        {entries && error ? error : ''}
      </p>
    </>
  );
}
