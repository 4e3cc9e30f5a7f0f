import { useCallback, useRef, useState } from 'preact/hooks';
import type { PageOf, SubAccount } from '../../answers.js';
import { call, get } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus } from '../../components/form.js';
import { useLiveReload } from '../../live-reload.js';
import { Panel } from '../../components/form.js';
import { credits } from './labels.js';
import { Loading } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import type { SessionInfo } from '../../session.js';
import { AutoRechargeForm, GrantForm } from './forms.js';
import { History } from './history.js';
import { SubAccountTable } from './sub-accounts.js';

/**
 * Agency (spec §2.7, §4.6): the agency's sub-accounts with their balances and auto-recharge rules, grants of credits
 * and the rule, and a sub-account's credit history. Only agencies see it in the navigation; the API refuses anyone
 * else, and this page then shows the API's refusal.
 */
export function AgencyPage(_props: { session: SessionInfo }) {
  const [subs, setSubs] = useState<SubAccount[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const deleting = useAction();

  /** Reads the sub-accounts again, as many as were shown, so a grant's new balance shows in its row. */
  const load = useCallback(async (shown = 0, cursor?: string | null) => {
    const res = await get<PageOf<SubAccount>>(
      `/v1/subaccounts?limit=${Math.min(200, Math.max(50, shown))}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    setError(res.ok ? undefined : res.error);
    if (!res.ok || !res.data) return;
    const page = res.data;
    setSubs((before) => (cursor ? [...(before ?? []), ...page.data] : page.data));
    setNext(page.nextCursor);
    if (!cursor) setSelected((s) => s ?? page.data[0]?.id);
  }, []);
  // Read again, as many as are shown, when a sub-account's credits change: a grant from n8n, a request asked.
  const shown = useRef(0);
  shown.current = subs?.length ?? 0;
  useLiveReload(() => load(shown.current), [load], { concerns: (e) => e.event === 'credits.updated' });

  if (!subs)
    return (
      <>
        <PageTitle>Agency</PageTitle>
        <Loading error={error} />
      </>
    );
  const changed = (email: string) => {
    setSelected(subs.find((s) => s.email === email)?.id ?? selected);
    setVersion((v) => v + 1);
    void load(subs.length);
  };
  // Gone at once for the API: its row goes, the history shown moves to another, and the list is read again.
  const remove = (gone: SubAccount) =>
    deleting.run(
      () => call('DELETE', `/v1/subaccounts/${encodeURIComponent(gone.id)}`),
      `${gone.name} (${gone.email}) is deleted: its data is being removed.${gone.balance > 0 ? ` Its unspent ${credits(gone.balance)} credits are back in your credit history.` : ''}`,
      () => {
        const left = subs.filter((s) => s.id !== gone.id);
        setSubs(left);
        if (selected === gone.id) setSelected(left[0]?.id);
        void load(left.length);
      },
    );
  const sub = subs.find((s) => s.id === selected);
  return (
    <>
      <PageTitle>Agency</PageTitle>
      <Panel title="Sub-accounts" id="subaccounts-heading">
        {subs.length === 0 ? (
          <p>No sub-account yet: the gateway's operator creates them with this agency as parent.</p>
        ) : (
          <SubAccountTable
            subs={subs}
            selected={selected}
            onSelect={setSelected}
            deleting={deleting.busy}
            onDelete={remove}
          />
        )}
        <FormStatus error={deleting.error} done={deleting.done} />
        {next && (
          <button type="button" class="secondary" onClick={() => void load(0, next)}>
            Show more sub-accounts
          </button>
        )}
      </Panel>
      {subs.length > 0 && (
        <>
          <Panel title="Grant credits" id="grant-heading">
            <GrantForm subs={subs} selected={selected} onDone={changed} />
          </Panel>
          <Panel title="Auto-recharge" id="recharge-heading">
            <AutoRechargeForm subs={subs} selected={selected} onDone={changed} />
          </Panel>
        </>
      )}
      {sub && (
        <Panel title="Credit history" id="history-heading">
          <History sub={sub} version={version} />
        </Panel>
      )}
    </>
  );
}
