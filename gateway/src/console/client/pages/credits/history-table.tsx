import { useState } from 'preact/hooks';
import type { CreditEntry, PageOf } from '../../answers.js';
import { get } from '../../api.js';
import { CreditTable } from '../../components/credit-table.js';
import { Loading, useLatest } from '../../components/load.js';
import { useLiveReload } from '../../live-reload.js';
import { credits, entryText } from './labels.js';
import { Button } from '../../components/button.js';

const PAGE = 50;

/**
 * The kinds the history is filtered by (GET …/credits/history?kind=); `granted`, `returned` on an agency's own only.
 */
const KINDS: Array<[string, string]> = [
  ['', 'All entries'],
  ['grant', 'Grants'],
  ['recharge', 'Recharges'],
  ['usage', 'Usage'],
  ['refund', 'Refunds'],
];
const AGENCY: Array<[string, string]> = [
  ['granted', 'Granted to sub-accounts'],
  ['returned', 'Returned by deleted sub-accounts'],
];

/**
 * A credit history, newest first, a page at a time: grants, recharges and what each message cost, by its kind and
 * channel. The account's own (GET /v1/credits/history) unless `path` names a sub-account's; read again from the top
 * when the stream tells credits changed, or when `version` changes (the agency granted). One kind at a time when
 * the user picks one; `granted` adds to the kinds an agency's grants to its sub-accounts and the balances of those it
 * deleted. Times are the browser's, and the page names its time zone.
 */
export function HistoryTable(props: {
  path?: string;
  version?: number;
  credits?: (n: number) => string;
  granted?: boolean;
}) {
  const path = props.path ?? '/v1/credits/history';
  const shown = props.credits ?? credits;
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const [kind, setKind] = useState('');
  const [entries, setEntries] = useState<CreditEntry[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const begin = useLatest();
  const read = async (cursor?: string) => {
    const fresh = begin();
    const res = await get<PageOf<CreditEntry>>(
      `${path}?limit=${PAGE}${kind ? `&kind=${kind}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (!fresh()) return;
    setError(res.ok ? undefined : res.error);
    if (!res.ok || !res.data) return;
    const page = res.data;
    setEntries((before) => (cursor ? [...(before ?? []), ...page.data] : page.data));
    setNext(page.nextCursor);
  };
  useLiveReload(() => read(), [path, props.version, kind], { concerns: (e) => e.event === 'credits.updated' });
  const more = async () => {
    setBusy(true);
    await read(next ?? undefined);
    setBusy(false);
  };

  // Another kind: the cursor shown was the other kind's, so Show more waits for the new first page.
  const choose = (chosen: string) => {
    setNext(null);
    setKind(chosen);
  };
  const filter = (
    <div class="field">
      <label for="credit-history-kind">Show</label>
      <select id="credit-history-kind" value={kind} onChange={(e) => choose(e.currentTarget.value)}>
        {(props.granted ? [...KINDS, ...AGENCY] : KINDS).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
  if (!entries) return <Loading error={error} />;
  if (entries.length === 0)
    return (
      <>
        {filter}
        <p>{kind ? 'No entries of this kind yet.' : 'No credits granted or spent yet.'}</p>
      </>
    );
  return (
    <>
      {filter}
      <p class="hint" data-time-zone>{`Times in ${timezone}.`}</p>
      <CreditTable
        id="credit-history"
        credits={shown}
        lines={entries.map((e) => ({
          ...e,
          what: entryText(e),
          note: e.kind === 'usage' || e.kind === 'returned' ? '' : (e.description ?? ''),
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
