import { useEffect, useState } from 'preact/hooks';
import { AUDIT_ACTIONS, type AuditAction } from '../../../../api-contract.js';
import type { AuditEntry, PageOf, TeamMember } from '../../answers.js';
import { get } from '../../api.js';
import { Button } from '../../components/button.js';
import { Panel } from '../../components/form.js';
import { Loading, useLatest } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import type { SessionInfo } from '../../session.js';
import { dateTime, loadTeam } from '../../team.js';

const PAGE = 50;

/** What each action of the audit log reads as in the table and in its filter. */
const ACTION_TEXT: Record<AuditAction, string> = {
  'settings.changed': 'Changed settings',
  'custom_channel.webhook_url_set': 'Set the Custom Channel Webhook URL',
  'webhook_secret.rotated': 'Generated a new webhook signing secret',
  'api_key.rotated': 'Generated a new API key',
  'member.invited': 'Invited a member',
  'member.reinvited': 'Sent a new invitation link',
  'member.changed': 'Changed a member',
  'member.removed': 'Removed a member',
  'channel.credentials_set': "Saved a channel's credentials",
  'channel.credentials_removed': "Removed a channel's credentials",
  'webhook.created': 'Created a webhook subscription',
  'webhook.deleted': 'Deleted a webhook subscription',
  'campaign.created': 'Created a campaign',
  'campaign.changed': 'Changed a campaign',
  'campaign.archived': 'Archived a campaign',
  'list.deleted': 'Deleted a list',
  'list.exported': 'Exported a list',
  'contact.exported': "Exported a contact's data",
  'contact.erased': 'Erased a contact',
  'contact.merged': 'Merged a duplicate into a contact',
  'subaccount.deleted': 'Deleted a sub-account',
  'console.signed_in': 'Signed in to the console',
};

/** What an entry's details add to its action: the settings or fields named, a role's change, an address. */
function detailsText(e: AuditEntry): string {
  const d = e.details;
  const parts: string[] = [];
  if (d.roleBefore && d.roleAfter) parts.push(`role ${d.roleBefore} → ${d.roleAfter}`);
  else if (d.keys) parts.push(d.keys.join(', '));
  if (d.role) parts.push(`as ${d.role}`);
  if (d.events) parts.push(`events: ${d.events.join(', ')}`);
  if (d.cleared) parts.push('cleared');
  if (d.duplicateId) parts.push(`merged ${d.duplicateId}`);
  if (d.ip) parts.push(`from ${d.ip}`);
  return parts.join('; ');
}

/** What an entry was done to: its kind and name as they were then, a contact by its id alone. */
const KIND_WORDS: Partial<Record<NonNullable<AuditEntry['target']>['type'], string>> = {
  webhook: 'webhook to',
  subaccount: 'sub-account',
};
const targetText = (e: AuditEntry): string =>
  e.target ? `${KIND_WORDS[e.target.type] ?? e.target.type} ${e.target.name ?? e.target.id}` : '';

/**
 * Settings › Activity: the account's audit log (GET /v1/audit-log), newest first, a page at a time: who changed what,
 * and when. Filtered by action and by who; the owner's and admins'.
 */
export function ActivityPage(_props: { session: SessionInfo }) {
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const [action, setAction] = useState('');
  const [actorId, setActorId] = useState('');
  const [team, setTeam] = useState<TeamMember[]>([]);
  const [entries, setEntries] = useState<AuditEntry[] | undefined>(undefined);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const begin = useLatest();
  const read = async (cursor?: string) => {
    const fresh = begin();
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (action) query.set('action', action);
    if (actorId) query.set('actorId', actorId);
    if (cursor) query.set('cursor', cursor);
    const res = await get<PageOf<AuditEntry>>(`/v1/audit-log?${query.toString()}`);
    if (!fresh()) return;
    setError(res.ok ? undefined : res.error);
    if (!res.ok || !res.data) return;
    const page = res.data;
    setEntries((before) => (cursor ? [...(before ?? []), ...page.data] : page.data));
    setNext(page.nextCursor);
  };
  // A filter changed: the cursor shown was the other filter's, so Show more waits for the new first page.
  useEffect(() => {
    setNext(null);
    void read();
  }, [action, actorId]);
  useEffect(() => {
    void loadTeam().then((res) => setTeam(res.items ?? []));
  }, []);
  const more = async () => {
    setBusy(true);
    await read(next ?? undefined);
    setBusy(false);
  };

  const filters = (
    <div class="inline-fields">
      <div class="field">
        <label for="activity-action">Action</label>
        <select id="activity-action" value={action} onChange={(e) => setAction(e.currentTarget.value)}>
          <option value="">Every action</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {ACTION_TEXT[a]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="activity-actor">Member</label>
        <select id="activity-actor" value={actorId} onChange={(e) => setActorId(e.currentTarget.value)}>
          <option value="">Everyone</option>
          {team.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
            </option>
          ))}
          <option value="api_key">API key</option>
        </select>
      </div>
    </div>
  );
  // The log is not live (no change of the stream tells of it): Refresh reads its newest entries again.
  const refresh = async () => {
    setBusy(true);
    await read();
    setBusy(false);
  };
  return (
    <>
      <PageTitle>Activity</PageTitle>
      <Panel title="Changes and sign-ins" id="activity-heading">
        <p class="hint">
          Changes to settings, the team, channels, webhooks, campaigns and lists, contacts' exports and erasures, and
          sign-ins, kept for a year.
        </p>
        {filters}
        <p>
          <Button type="button" class="secondary" unavailable={busy} onClick={() => void refresh()}>
            Refresh
          </Button>
        </p>
        {!entries ? (
          <Loading error={error} />
        ) : entries.length === 0 ? (
          <p>{action || actorId ? 'Nothing of this kind yet.' : 'Nothing recorded yet.'}</p>
        ) : (
          <>
            <p class="hint" data-time-zone>{`Times in ${timezone}.`}</p>
            <div class="table-scroll" role="region" aria-labelledby="activity-caption" tabIndex={0}>
              <table class="data-table activity">
                <caption id="activity-caption">Activity, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Who</th>
                    <th scope="col">What</th>
                    <th scope="col">On what</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((e) => (
                    <tr key={e.id} data-action={e.action}>
                      <td>{dateTime(e.at)}</td>
                      <td>{e.actor.name}</td>
                      <td class="wrap">
                        {ACTION_TEXT[e.action]}
                        {detailsText(e) && <span class="hint">{` (${detailsText(e)})`}</span>}
                      </td>
                      <td class="wrap">{targetText(e)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {next && (
              <p>
                <Button type="button" class="secondary" unavailable={busy} onClick={() => void more()}>
                  Show more
                </Button>
              </p>
            )}
            <p class="error" role="alert">
              {error ?? ''}
            </p>
          </>
        )}
      </Panel>
    </>
  );
}
