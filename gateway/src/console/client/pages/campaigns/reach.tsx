import { answersOnly } from '../../../../api-contract.js';
import { useEffect, useState } from 'preact/hooks';
import type { Campaign, ListContact, PageOf, Unreachable, UnreachableContact } from '../../answers.js';
import { get } from '../../api.js';
import type { Draft } from './campaign.js';
import { Link } from '../../router.js';

export const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Why the campaign could not reach a contact, in words, by the API's reason; the reason itself when it is new to the console. */
export function reasonWords(reason: string, campaign: Pick<Campaign, 'channel' | 'customChannel'>): string {
  const words: Record<string, string> = {
    no_external_id: `no external ID on the custom channel “${campaign.customChannel ?? ''}” (add one to the contact, or map an ID column when importing)`,
    no_phone: 'no phone number',
    opted_out: 'opted out',
    outside_whatsapp_window: 'were outside WhatsApp’s 24-hour window (set a re-engagement template)',
    no_first_message: `were added to the list, but ${campaign.channel === 'instagram' ? 'Instagram' : 'Messenger'} lets a business only answer those who write`,
    outside_meta_window: 'were outside Meta’s window (24 hours after they wrote; 7 days for a person’s reply)',
    wrote_first: 'wrote to you first: their conversation is under way, so no opening message interrupts it',
  };
  return words[reason] ?? reason;
}

/** Where the campaign's page lists the contacts it could not reach: the notice's links lead there. */
export const UNREACHABLE_ANCHOR = 'unreachable-contacts';

/** A contact as the team knows it: its name, else what it is reached by; a deleted one says so. */
export const unreachableName = (u: UnreachableContact) => {
  const c = u.contact;
  if (!c) return 'a deleted contact';
  return `${c.firstName} ${c.lastName}`.trim() || c.phone || c.email || Object.values(c.externalIds ?? {})[0] || c.id;
};

/** How many contacts of each reason a notice names; the campaign's page lists them all. */
const NAMED = 5;

/** "2 contacts: no phone number", one line per reason with a count, in the API's order. */
export function ReasonList(props: {
  counts: Record<string, number>;
  campaign: Pick<Campaign, 'channel' | 'customChannel'>;
}) {
  const reasons = Object.entries(props.counts).filter(([, n]) => n > 0);
  return (
    <ul>
      {reasons.map(([reason, n]) => (
        <li key={reason}>
          {plural(n, 'contact', 'contacts')}: {reasonWords(reason, props.campaign)}
        </li>
      ))}
    </ul>
  );
}

/** The first contacts of each reason, by name, read from GET /v1/campaigns/{id}/unreachable. */
function useNamed(campaignId: string, counts: Record<string, number>): Record<string, string[]> {
  const [named, setNamed] = useState<Record<string, string[]>>({});
  const reasons = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([reason]) => reason);
  const key = `${campaignId}:${Object.entries(counts).join()}`;
  useEffect(() => {
    let live = true;
    void Promise.all(
      reasons.map(async (reason) => {
        const res = await get<PageOf<UnreachableContact>>(
          `/v1/campaigns/${encodeURIComponent(campaignId)}/unreachable?reason=${reason}&limit=${NAMED}`,
        );
        return [reason, res.ok ? res.data!.data.map(unreachableName) : []] as const;
      }),
    ).then((found) => live && setNamed(Object.fromEntries(found)));
    return () => {
      live = false;
    };
  }, [key]);
  return named;
}

/** "Ann Ray, Bo Ray and 3 more". */
const namesWords = (names: string[], count: number) => {
  const more = count - names.length;
  if (more <= 0) return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
  return `${names.join(', ')} and ${plural(more, 'other', 'others')}`;
};

/**
 * Why some of the campaign's list never heard from it, where the team looks (the campaign's page, the funnel): each
 * reason with the contacts it names and a link to all of them, listed on the campaign's page.
 */
export function UnreachableNotice(props: {
  campaign: Pick<Campaign, 'id' | 'channel' | 'customChannel'>;
  unreachable?: Unreachable;
  onCampaignPage?: boolean;
}) {
  const u = props.unreachable;
  const named = useNamed(props.campaign.id, u?.byReason ?? {});
  if (!u || u.total === 0) return null;
  const reasons = Object.entries(u.byReason).filter(([, n]) => n > 0);
  const see = u.total === 1 ? 'See this contact' : `See the ${plural(u.total, 'contact', 'contacts')} not reached`;
  return (
    <div class="warning" role="status" aria-label="Contacts not reached">
      <p>{plural(u.total, 'contact of the list was', 'contacts of the list were')} not reached:</p>
      <ul>
        {reasons.map(([reason, n]) => (
          <li key={reason}>
            {plural(n, 'contact', 'contacts')}: {reasonWords(reason, props.campaign)}
            {named[reason]?.length ? <>: {namesWords(named[reason]!, n)}</> : null}.
          </li>
        ))}
      </ul>
      <p>
        {props.onCampaignPage ? (
          <a href={`#${UNREACHABLE_ANCHOR}`}>{see}</a>
        ) : (
          <Link href={`/console/campaigns?id=${encodeURIComponent(props.campaign.id)}#${UNREACHABLE_ANCHOR}`}>
            {see}
          </Link>
        )}
      </p>
    </div>
  );
}

/** Whether the campaign's channel has an address for a contact of the list, as the gateway chooses it. */
const reachable = (d: Draft, m: ListContact) =>
  !m.optOut && (d.channel === 'custom' ? Boolean(m.externalIds?.[d.customChannel.trim()] ?? m.fromId) : m.phone !== '');

/**
 * Before a campaign goes Live: a warning when its list holds contacts and none of the first 200 can be reached on
 * its channel, since the campaign would then send nothing to contacts like them. Undefined when there is nothing to say.
 */
export async function liveWarning(d: Draft): Promise<string | undefined> {
  // A campaign that only answers reaches nobody on its list first: the form says so by the list already.
  if (d.status !== 'live' || !d.listId || answersOnly(d.channel)) return undefined;
  const res = await get<PageOf<ListContact>>(`/v1/lists/${encodeURIComponent(d.listId)}/contacts?limit=200`);
  const members = res.ok ? res.data!.data : [];
  if (members.length === 0 || members.some((m) => reachable(d, m))) return undefined;
  const where =
    d.channel === 'custom' ? `an external ID on the custom channel “${d.customChannel.trim()}”` : 'a phone number';
  return `None of the ${plural(members.length, 'contact', 'contacts')} checked in the list has ${where}: the campaign cannot reach them. Save again to go Live anyway.`;
}
