import { useEffect, useState } from 'preact/hooks';
import type { Campaign, CampaignWithReach, Funnel } from '../../answers.js';
import { get } from '../../api.js';
import { FormStatus, Panel } from '../../components/form.js';
import { Loading, useLatest } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import { UnreachableNotice } from '../campaigns/reach.js';
import { allPages } from '../lists/paged.js';
import { FunnelBars } from './funnel-bars.js';
import { FunnelChart, FunnelTable } from './funnel-chart.js';
import { Button } from '../../components/button.js';

/**
 * Every campaign of the account, walking the pages of GET /v1/campaigns, then the archived ones after them: a
 * finished campaign's funnel is read still.
 */
async function allCampaigns(): Promise<{ campaigns?: Campaign[]; error?: string }> {
  const [open, archived] = await Promise.all([
    allPages<Campaign>('/v1/campaigns'),
    allPages<Campaign>('/v1/campaigns?status=archived'),
  ]);
  const error = open.error ?? archived.error;
  return error ? { error } : { campaigns: [...open.items, ...archived.items] };
}

export const isoDay = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/**
 * The first day of a campaign's lifetime, as far back as one range may reach (366 days with today). Counted in days
 * of the calendar: 365 times 24 hours back from just after midnight, on a day whose clocks had not changed yet a year
 * before, ends on the evening of the day before, a range the API refuses.
 */
export function lifetimeFrom(c: Pick<Campaign, 'createdAt'> | undefined): string {
  const today = new Date();
  const earliest = isoDay(new Date(today.getFullYear(), today.getMonth(), today.getDate() - 365));
  const created = isoDay(c ? new Date(c.createdAt) : today);
  return created > earliest ? created : earliest;
}

type Query = { campaignId: string; from: string; to: string };

/**
 * The funnel asked for in the address (`?id=&from=&to=`), so a reload or a shared link shows the same one and Back
 * the one before: an unknown campaign is the first one, its days its lifetime.
 */
function queryInAddress(campaigns: Campaign[]): Query {
  const params = new URLSearchParams(location.search);
  const asked = campaigns.find((c) => c.id === params.get('id'));
  const campaign = asked ?? campaigns[0];
  return {
    campaignId: campaign?.id ?? '',
    from: (asked && params.get('from')) || lifetimeFrom(campaign),
    to: (asked && params.get('to')) || isoDay(new Date()),
  };
}

/**
 * Funnel at a glance: a campaign's contacts added, sent the opening message, replying, handed off, opting out,
 * reaching the goal and failing, for a range of days in the browser's time zone (GET /v1/campaigns/{id}/funnel),
 * from the campaign's first day unless the user picks other days.
 */
export function FunnelPage() {
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const [campaigns, setCampaigns] = useState<Campaign[] | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
  const [query, setQuery] = useState<Query>({ campaignId: '', from: lifetimeFrom(undefined), to: isoDay(new Date()) });
  // The form's fields are drawn again from the query when Back or Forward brings another.
  const [drawn, setDrawn] = useState(0);
  const [funnel, setFunnel] = useState<Funnel | undefined>(undefined);
  // The contacts of its list the campaign could not reach, by reason (GET /v1/campaigns/{id}): in every range.
  const [reach, setReach] = useState<CampaignWithReach | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  // Back and Forward may ask for another funnel before the last one answered: only the latest is shown.
  const begin = useLatest();
  const show = async (q: Query) => {
    if (!q.campaignId) return;
    const fresh = begin();
    setBusy(true);
    const params = new URLSearchParams({ from: q.from, to: q.to, timezone });
    const id = encodeURIComponent(q.campaignId);
    const [res, campaign] = await Promise.all([
      get<Funnel>(`/v1/campaigns/${id}/funnel?${params}`),
      get<CampaignWithReach>(`/v1/campaigns/${id}`),
    ]);
    if (!fresh()) return;
    setBusy(false);
    setError(res.ok ? undefined : res.error);
    setFunnel(res.ok ? res.data : undefined);
    setReach(campaign.ok ? campaign.data : undefined);
  };

  useEffect(() => {
    void allCampaigns().then(({ campaigns: found, error: failed }) => {
      setLoadError(failed);
      setCampaigns(found);
      const first = queryInAddress(found ?? []);
      setQuery(first);
      void show(first);
    });
  }, []);
  useEffect(() => {
    if (!campaigns) return;
    const moved = () => {
      const q = queryInAddress(campaigns);
      setQuery(q);
      setDrawn((n) => n + 1);
      void show(q);
    };
    addEventListener('popstate', moved);
    return () => removeEventListener('popstate', moved);
  }, [campaigns]);

  if (!campaigns)
    return (
      <>
        <PageTitle>Funnel</PageTitle>
        <Loading error={loadError} />
      </>
    );
  if (!campaigns.length) {
    return (
      <>
        <PageTitle>Funnel</PageTitle>
        <Panel title="No campaign yet" id="funnel-none">
          <p>Create a campaign first: its funnel shows here once contacts join its list.</p>
        </Panel>
      </>
    );
  }
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const next = {
      campaignId: String(form.get('funnel-campaign')),
      from: String(form.get('funnel-from')),
      to: String(form.get('funnel-to')),
    };
    setQuery(next);
    const params = new URLSearchParams({ id: next.campaignId, from: next.from, to: next.to });
    history.pushState(null, '', `${location.pathname}?${params}`);
    void show(next);
  };
  const name = campaigns.find((c) => c.id === funnel?.campaignId)?.name;
  return (
    <>
      <PageTitle>Funnel</PageTitle>
      <Panel title="Campaign and days" id="funnel-query-heading">
        <form key={drawn} onSubmit={submit} class="funnel-query">
          <div class="field">
            <label for="funnel-campaign">Campaign</label>
            <select
              id="funnel-campaign"
              name="funnel-campaign"
              onChange={(e) => {
                // Another campaign: its own lifetime, which the user may still change.
                const from = e.currentTarget.form?.elements.namedItem('funnel-from') as HTMLInputElement | null;
                if (from) from.value = lifetimeFrom(campaigns.find((c) => c.id === e.currentTarget.value));
              }}
            >
              {campaigns.map((c) => (
                // A select has no default value of its own: its option does.
                <option key={c.id} value={c.id} selected={c.id === query.campaignId}>
                  {`${c.name} (${c.status})`}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="funnel-from">From</label>
            <input id="funnel-from" name="funnel-from" type="date" required defaultValue={query.from} />
          </div>
          <div class="field">
            <label for="funnel-to">To</label>
            <input id="funnel-to" name="funnel-to" type="date" required defaultValue={query.to} />
          </div>
          <p class="hint">{`Days are counted in your time zone, ${timezone}. A range covers at most 366 days.`}</p>
          <Button type="submit" class="primary" unavailable={busy}>
            Show funnel
          </Button>
          <FormStatus error={error} />
        </form>
      </Panel>
      {funnel && (
        <>
          <Panel title={`${name ?? 'Campaign'}: ${funnel.from} to ${funnel.to}`} id="funnel-totals-heading">
            <p class="hint">Each contact counts once per step, on the day it first got there.</p>
            <FunnelBars totals={funnel.totals} />
            {reach?.id === funnel.campaignId && <UnreachableNotice campaign={reach} unreachable={reach.unreachable} />}
          </Panel>
          <Panel title="Over time" id="funnel-days-heading">
            <FunnelChart funnel={funnel} />
            <FunnelTable funnel={funnel} />
          </Panel>
        </>
      )}
    </>
  );
}
