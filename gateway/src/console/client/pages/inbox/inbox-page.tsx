import { canAct, MAX_PAGE_LIMIT } from '../../../../api-contract.js';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Conversation, PageOf, TeamMember } from '../../answers.js';
import { get } from '../../api.js';
import { useLatest } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import type { SessionInfo } from '../../session.js';
import { loadTeam, useTeamNews } from '../../team.js';
import { useLiveReload } from '../../live-reload.js';
import { onNavigate } from '../../router.js';
import { NotifySwitch } from '../../notify/switch.js';
import { AssigneeSwitch, type Team } from './assignee.js';
import { ContactSearch } from './contact-search.js';
import { ConversationList } from './conversation-list.js';
import { useAccountLabels } from './conversation-labels.js';
import { FilterBar, filterQuery, listQuery, NO_FILTERS, type Filters } from './filters.js';
import { LiveStatus } from './live-status.js';
import { HoursStatus } from './hours-status.js';
import { RetryAllFailed } from './retry-all.js';
import { Thread } from './thread.js';

const PAGE = 25;

/**
 * The conversation open in the address (?c=…), so a reload or a shared link opens the same one. Opening one is an
 * entry of the history, as a list or a campaign is: Back returns to the conversations (on a phone, from a thread
 * that fills the screen) rather than leaving the Inbox.
 */
const openInAddress = () => new URLSearchParams(location.search).get('c') ?? undefined;

/**
 * The inbox: the account's conversations, those that need a reply first, each group newest activity first, filtered
 * as the API filters them (the signed-in member's, the unassigned, or all) and read again when the stream tells of a
 * change to a conversation (every few seconds while it is down), beside the thread of the one open.
 */
export function InboxPage({ session }: { session: SessionInfo }) {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [members, setMembers] = useState<TeamMember[] | undefined>(undefined);
  const readTeam = () => void loadTeam().then((res) => !res.error && setMembers(res.items));
  useEffect(readTeam, []);
  // The picker says who is away, and names who joined: read again when the team changes.
  useTeamNews(readTeam);
  const team: Team = { members: members ?? [], me: session.member.id };
  const [limit, setLimit] = useState(PAGE);
  const [page, setPage] = useState<PageOf<Conversation> | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(openInAddress);
  // A notification clicked names its conversation in the address; Back and Forward move between those opened.
  useEffect(() => onNavigate(() => setOpen(openInAddress())), []);

  // Only the latest read is shown: a read under the filters just left may answer after the one under the new ones.
  const begin = useLatest();
  const load = async () => {
    const fresh = begin();
    const query = `limit=${limit}${listQuery(filters)}`;
    // Those that need a reply come first, whatever our paced opening messages did since: then the others.
    const [waiting, others] = await Promise.all([
      get<PageOf<Conversation>>(`/v1/conversations?${query}&needsReply=true`),
      get<PageOf<Conversation>>(`/v1/conversations?${query}&needsReply=false`),
    ]);
    if (!fresh()) return;
    // More of either group makes more to show: those waiting beyond the page too, however few the others.
    if (waiting.ok && others.ok)
      setPage({
        data: [...waiting.data!.data, ...others.data!.data],
        nextCursor: waiting.data!.nextCursor ?? others.data!.nextCursor,
      });
    setError(waiting.ok ? (others.ok ? undefined : others.error) : waiting.error);
  };
  const reload = useLiveReload(load, [filters, limit], { concerns: (e) => e.event.startsWith('conversation.') });
  // A conversation given to someone the team as read does not name: they joined since the page opened.
  useEffect(() => {
    if (members && page?.data.some((c) => c.assigneeId && !members.some((m) => m.id === c.assigneeId))) readTeam();
  }, [page]);

  // The conversation whose thread was just closed: the focus goes back to it in the list (or to the list, when it
  // is not there), rather than to the top of the page with the thread's button gone.
  const closed = useRef<string | undefined>(undefined);
  const listHeading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => {
    if (open || closed.current === undefined) return;
    const item = document.querySelector<HTMLElement>(`.inbox-item[data-conversation="${CSS.escape(closed.current)}"]`);
    (item ?? listHeading.current)?.focus();
    closed.current = undefined;
  }, [open]);

  const choose = (id: string | undefined) => {
    setOpen(id);
    if (id === openInAddress()) return;
    history.pushState(null, '', id ? `${location.pathname}?c=${encodeURIComponent(id)}` : location.pathname);
  };
  const filter = (f: Filters) => {
    setFilters(f);
    setLimit(PAGE);
  };
  const filtered = filterQuery(filters) !== '';
  // The Label filter offers the account's labels, read again when those on the conversations shown change.
  const labels = useAccountLabels(page?.data.map((c) => c.labels.join('\n')).join('\n\n'));
  return (
    <>
      <PageTitle>Inbox</PageTitle>
      <div class="inbox-bar">
        <NotifySwitch me={session.member.id} />
        <LiveStatus />
        <HoursStatus />
      </div>
      <div class={`inbox${open ? ' inbox-open' : ''}`}>
        <section class="panel inbox-list" aria-labelledby="conversations-heading">
          <h2 id="conversations-heading" ref={listHeading} tabIndex={-1}>
            Conversations
          </h2>
          <ContactSearch admin={canAct(session.member.role, 'admin')} onOpen={choose} onChanged={reload} />
          <div class="inbox-controls">
            <AssigneeSwitch value={filters.assigneeId} onChange={(assigneeId) => filter({ ...filters, assigneeId })} />
            <FilterBar value={filters} onChange={filter} labels={labels} />
          </div>
          {filters.failed === 'true' && <RetryAllFailed label="Retry all failed messages" onDone={reload} />}
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          {page ? (
            <ConversationList items={page.data} team={team} selected={open} filtered={filtered} onOpen={choose} />
          ) : (
            !error && <p role="status">Loading…</p>
          )}
          {page?.nextCursor && limit < MAX_PAGE_LIMIT && (
            <button type="button" class="secondary" onClick={() => setLimit(Math.min(limit + PAGE, MAX_PAGE_LIMIT))}>
              Show more conversations
            </button>
          )}
        </section>
        {open ? (
          <Thread
            key={open}
            id={open}
            team={team}
            business={session.account.name}
            admin={canAct(session.member.role, 'admin')}
            onClose={() => {
              closed.current = open;
              choose(undefined);
            }}
            onChanged={reload}
          />
        ) : (
          <section class="panel inbox-thread inbox-empty" aria-label="Conversation">
            <p class="current">Choose a conversation to read it and reply.</p>
          </section>
        )}
      </div>
    </>
  );
}
