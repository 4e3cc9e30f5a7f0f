import { useEffect, useState } from 'preact/hooks';
import type { Campaign, PageOf } from '../../answers.js';
import { get } from '../../api.js';
import type { LabelInUse } from './conversation-labels.js';

export interface Filters {
  status: string;
  channel: string;
  campaignId: string;
  /** 'true': only conversations holding a failed message. */
  failed: string;
  /** 'me': the signed-in member's; 'none': nobody's; empty: all. */
  assigneeId: string;
  /** 'true': only the snoozed conversations; empty: only the others, as the inbox is worked. */
  snoozed: string;
  /** Only the conversations carrying this label (case aside); empty: all. */
  label: string;
}

export const NO_FILTERS: Filters = {
  status: '',
  channel: '',
  campaignId: '',
  failed: '',
  assigneeId: '',
  snoozed: '',
  label: '',
};

/** The query string of GET /v1/conversations for these filters (the API does the filtering). */
export const filterQuery = (f: Filters) =>
  Object.entries(f)
    .filter(([, v]) => v)
    .map(([k, v]) => `&${k}=${encodeURIComponent(v)}`)
    .join('');

/** The query of the list: the snoozed conversations are out of it unless they are what the Snoozed filter asks. */
export const listQuery = (f: Filters) => `${filterQuery(f)}${f.snoozed ? '' : '&snoozed=false'}`;

/** The filters of the bar set to something: the assignee has a switch of its own. */
const setCount = (f: Filters) =>
  [f.status, f.failed, f.channel, f.campaignId, f.snoozed, f.label].filter(Boolean).length;

/**
 * Status, channel, campaign, label, failed messages and the snoozed conversations (out of the list unless chosen), as
 * GET /v1/conversations filters by them. On a phone they fold behind one Filters button (saying how many are set), so
 * the conversations start on the first screen; elsewhere they are always in view and the button is not shown.
 */
export function FilterBar(props: { value: Filters; onChange: (f: Filters) => void; labels: LabelInUse[] }) {
  const [shown, setShown] = useState(false);
  const [campaigns, setCampaigns] = useState<Array<Pick<Campaign, 'id' | 'name'>>>([]);
  // The archived campaigns after the others: their conversations stay, and are found by them.
  useEffect(() => {
    const read = (query: string) =>
      get<PageOf<Campaign>>(`/v1/campaigns?limit=200${query}`).then((res) => (res.ok ? res.data!.data : []));
    void Promise.all([read(''), read('&status=archived')]).then(([inUse, archived]) =>
      setCampaigns([...inUse, ...archived.map((c) => ({ id: c.id, name: `${c.name} (archived)` }))]),
    );
  }, []);
  const set = (key: keyof Filters) => (e: Event) =>
    props.onChange({ ...props.value, [key]: (e.currentTarget as HTMLSelectElement).value });
  const count = setCount(props.value);
  return (
    <>
      <button
        type="button"
        class="secondary inbox-filters-toggle"
        aria-expanded={shown}
        aria-controls="inbox-filters"
        onClick={() => setShown(!shown)}
      >
        {count ? `Filters (${count} set)` : 'Filters'}
      </button>
      <div id="inbox-filters" class={`inbox-filters${shown ? ' inbox-filters-shown' : ''}`}>
        <div class="field">
          <label for="inbox-status">Status</label>
          <select id="inbox-status" value={props.value.status} onChange={set('status')}>
            <option value="">All</option>
            <option value="active">Active</option>
            <option value="handed_off">Handed off</option>
            <option value="opted_out">Opted out</option>
            <option value="closed">Closed</option>
          </select>
        </div>
        <div class="field">
          <label for="inbox-failed">Messages</label>
          <select id="inbox-failed" value={props.value.failed} onChange={set('failed')}>
            <option value="">All</option>
            <option value="true">Failed</option>
          </select>
        </div>
        <div class="field">
          <label for="inbox-snoozed">Snoozed</label>
          <select id="inbox-snoozed" value={props.value.snoozed} onChange={set('snoozed')}>
            <option value="">Hidden</option>
            <option value="true">Only snoozed</option>
          </select>
        </div>
        <div class="field">
          <label for="inbox-channel">Channel</label>
          <select id="inbox-channel" value={props.value.channel} onChange={set('channel')}>
            <option value="">All</option>
            <option value="sms">SMS</option>
            <option value="whatsapp">WhatsApp</option>
            <option value="messenger">Messenger</option>
            <option value="instagram">Instagram</option>
            <option value="custom">Custom channels</option>
          </select>
        </div>
        <div class="field">
          <label for="inbox-campaign">Campaign</label>
          <select id="inbox-campaign" value={props.value.campaignId} onChange={set('campaignId')}>
            <option value="">All</option>
            {campaigns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="inbox-label">Label</label>
          <select id="inbox-label" value={props.value.label} onChange={set('label')}>
            <option value="">All</option>
            {/* The label chosen stays offered while no conversation carries it any more: the list then says none. */}
            {props.value.label &&
              !props.labels.some((l) => l.name.toLowerCase() === props.value.label.toLowerCase()) && (
                <option value={props.value.label}>{props.value.label}</option>
              )}
            {props.labels.map((l) => (
              <option key={l.name} value={l.name}>
                {l.name} ({l.conversations})
              </option>
            ))}
          </select>
        </div>
      </div>
    </>
  );
}
