import { useEffect, useState } from 'preact/hooks';
import type { Campaign, CampaignOpenings, Funnel } from '../../answers.js';
import { get } from '../../api.js';
import { FormStatus, Panel } from '../../components/form.js';
import { isoDay, lifetimeFrom } from '../funnel/funnel-page.js';
import type { ReachOutcome } from './campaign-form.js';
import { FailedOpenings } from './failed-openings.js';
import { countList, reachExisting, ReachQuestion, ReachReport, type ListCount } from './reach-existing.js';
import { Button } from '../../components/button.js';

/** How often the count of opening messages sent is read again while queued ones go. */
const REFRESH_MS = 5_000;

/** The campaign's opening messages sent in its lifetime, as its funnel counts them (GET /v1/campaigns/{id}/funnel). */
async function openingsSent(campaign: Campaign): Promise<number | undefined> {
  const params = new URLSearchParams({
    from: lifetimeFrom(campaign),
    to: isoDay(new Date()),
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
  });
  const res = await get<Funnel>(`/v1/campaigns/${encodeURIComponent(campaign.id)}/funnel?${params}`);
  return res.ok ? res.data!.totals.openingSent : undefined;
}

/** What one opening costs, the balance, and the openings failed now (GET /v1/campaigns/{id}/openings). */
async function openingsOf(campaign: Campaign): Promise<CampaignOpenings | undefined> {
  const res = await get<CampaignOpenings>(`/v1/campaigns/${encodeURIComponent(campaign.id)}/openings`);
  return res.ok ? res.data : undefined;
}

/**
 * What the campaign sent to its list: the opening messages sent so far, those just queued for the contacts already
 * on the list and those it could not reach (the page's notice above counts every one by reason), those that failed
 * with their retry; and, on a Live campaign with a list, "Message contacts already on the list" for an admin, asked
 * first with how many, how long, and whether the balance pays for them.
 */
export function OpeningsPanel(props: {
  campaign: Campaign;
  admin: boolean;
  reach?: ReachOutcome;
  onReached: (reach: ReachOutcome) => void;
}) {
  const { campaign, reach } = props;
  const [sent, setSent] = useState<number | undefined>(undefined);
  const [openings, setOpenings] = useState<CampaignOpenings | undefined>(undefined);
  const [asking, setAsking] = useState<ListCount | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  // Read again now and then while queued openings go, for a while after they should all have gone.
  const queued = reach?.reached?.queued ?? 0;
  const refresh = () => {
    void openingsSent(campaign).then(setSent);
    void openingsOf(campaign).then(setOpenings);
  };
  useEffect(() => {
    refresh();
    if (queued === 0) return;
    const timer = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, [campaign.id, campaign.updatedAt, queued]);

  const ask = async () => {
    setError(undefined);
    setBusy(true);
    const [count, cost] = await Promise.all([countList(campaign.listId!), openingsOf(campaign)]);
    setBusy(false);
    setOpenings(cost ?? openings);
    if (!count) return setError('The list could not be read. Try again.');
    if (count.count === 0) return setError('The list holds no contact yet: those added to it get the opening message.');
    setAsking(count);
  };
  const reachThem = async () => {
    setBusy(true);
    const res = await reachExisting(campaign.id);
    setBusy(false);
    setAsking(undefined);
    props.onReached(res.ok ? { reached: res.data } : { error: res.error });
  };
  const offered = props.admin && campaign.status === 'live' && campaign.listId !== null;
  return (
    <Panel title="Opening messages" id="openings-heading">
      <p class="current" data-count="opening-sent">
        {sent === undefined
          ? 'Counting the opening messages sent…'
          : `${sent.toLocaleString('en-US')} ${sent === 1 ? 'opening message' : 'opening messages'} sent so far.`}
      </p>
      {reach?.reached && <ReachReport reached={reach.reached} campaign={campaign} />}
      <FailedOpenings campaignId={campaign.id} openings={openings} onRetried={refresh} />
      {offered &&
        (asking ? (
          <ReachQuestion
            campaign={campaign}
            count={asking}
            cost={openings}
            also={false}
            yes="Message them"
            busy={busy}
            onYes={() => void reachThem()}
            onCancel={() => setAsking(undefined)}
          />
        ) : (
          <p>
            <Button type="button" class="secondary" unavailable={busy} onClick={() => void ask()}>
              Message contacts already on the list
            </Button>
          </p>
        ))}
      {offered && !asking && (
        <p class="hint">
          Contacts added to the list get the opening message as they arrive; those already on it get it only when asked
          here, once each.
        </p>
      )}
      <FormStatus error={error ?? reach?.error} />
    </Panel>
  );
}
