import type { Campaign, UnreachableContact } from '../../answers.js';
import { Panel } from '../../components/form.js';
import { Loading } from '../../components/load.js';
import { Pager, usePaged } from '../lists/paged.js';
import { reasonWords, UNREACHABLE_ANCHOR, unreachableName } from './reach.js';

/**
 * Every contact the campaign could not reach, a page at a time, with what it has and why it was not reached, so the
 * team can find each one and give it what it lacks (a phone, an external ID) or leave it be (opted out).
 */
export function UnreachablePanel(props: { campaign: Campaign }) {
  const paged = usePaged<UnreachableContact>(`/v1/campaigns/${encodeURIComponent(props.campaign.id)}/unreachable`, 25);
  return (
    <Panel title="Contacts not reached" id={UNREACHABLE_ANCHOR}>
      <p class="hint">The contacts of the list this campaign could not send to, in the order it found them, and why.</p>
      {!paged.items ? (
        <Loading error={paged.error} />
      ) : (
        <div class="table-scroll" role="region" aria-label="Table of the contacts not reached" tabIndex={0}>
          <table class="unreachable-contacts">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Phone</th>
                <th scope="col">Email</th>
                <th scope="col">Why not reached</th>
              </tr>
            </thead>
            <tbody>
              {paged.items.map((u) => (
                <tr key={`${u.reason}-${u.contactId}`}>
                  <td>{unreachableName(u)}</td>
                  <td>{u.contact?.phone || '—'}</td>
                  <td>{u.contact?.email || '—'}</td>
                  <td>{reasonWords(u.reason, props.campaign)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager label="Pages of contacts not reached" paged={paged} />
    </Panel>
  );
}
