import { useEffect, useState } from 'preact/hooks';
import { INVITE_PATH, mayOpen, PAGES, SIGN_IN_PATH } from '../pages.js';
import { toSignIn } from './api.js';
import { BusyNotice } from './components/busy.js';
import { SessionEnded, SignedInAs } from './components/session-ended.js';
import { Shell } from './components/shell.js';
import { AcceptInvite } from './pages/invite.js';
import { NotFound } from './pages/not-found.js';
import { Refused } from './pages/refused.js';
import { SignIn } from './pages/sign-in.js';
import { AgencyPage } from './pages/agency/agency-page.js';
import { CreditsPage } from './pages/credits/credits-page.js';
import { FunnelPage } from './pages/funnel/funnel-page.js';
import { CampaignsPage } from './pages/campaigns/campaigns-page.js';
import { ListsPage } from './pages/lists/lists-page.js';
import { InboxPage } from './pages/inbox/inbox-page.js';
import { AccountPage } from './pages/settings/account.js';
import { ActivityPage } from './pages/settings/activity.js';
import { BotPage } from './pages/settings/bot.js';
import { ChannelsPage } from './pages/settings/channels.js';
import { MembersPage } from './pages/settings/members.js';
import { SavedRepliesPage } from './pages/settings/saved-replies.js';
import { WebhookPage } from './pages/settings/webhook.js';
import { usePath } from './router.js';
import { loadSession, type SessionInfo } from './session.js';
import { useNotifier } from './notify/notifier.js';
import { useWaiting, waitingCount } from './waiting.js';

/** Each page of pages.ts and the component that draws it. */
const VIEWS: Record<string, (props: { session: SessionInfo }) => preact.JSX.Element> = {
  '/console/settings/account': AccountPage,
  '/console/settings/webhook': WebhookPage,
  '/console/settings/bot': BotPage,
  '/console/settings/channels': ChannelsPage,
  '/console/settings/members': MembersPage,
  '/console/settings/saved-replies': SavedRepliesPage,
  '/console/settings/activity': ActivityPage,
  '/console/campaigns': CampaignsPage,
  '/console/lists': ListsPage,
  '/console/inbox': InboxPage,
  '/console/funnel': FunnelPage,
  '/console/credits': CreditsPage,
  '/console/agency': AgencyPage,
};

export function App() {
  const path = usePath();
  // Both are for someone not signed in yet: no session is loaded.
  if (path === SIGN_IN_PATH) return <SignIn />;
  if (path === INVITE_PATH) return <AcceptInvite />;
  return <SignedIn path={path} />;
}

function SignedIn(props: { path: string }) {
  const [session, setSession] = useState<SessionInfo | undefined>(undefined);
  // The gateway could not tell who is signed in (out of reach while it restarts): said, with a way to ask again,
  // rather than a sign-in page for a session that may well be alive.
  const [error, setError] = useState<string | undefined>(undefined);
  const load = () => {
    setError(undefined);
    void loadSession().then((res) =>
      res.session ? setSession(res.session) : res.error ? setError(res.error) : toSignIn(),
    );
  };
  useEffect(load, []);
  if (error)
    return (
      <div class="boot">
        <p class="error" role="alert">
          {error}
        </p>
        <button type="button" class="primary" onClick={load}>
          Try again
        </button>
      </div>
    );
  if (!session)
    return (
      <p role="status" class="boot">
        Loading…
      </p>
    );
  return <Console session={session} path={props.path} />;
}

/** A signed-in page, with what every page does: the title counts the conversations waiting, and news is told. */
function Console(props: { session: SessionInfo; path: string }) {
  const { session } = props;
  const waiting = useWaiting();
  useNotifier(session.member.id, waiting);
  const page = PAGES.find((p) => p.path === props.path);
  const View = page && VIEWS[page.path];
  const { role } = session.member;
  return (
    <SignedInAs value={session}>
      <Shell session={session} page={page} waiting={waitingCount(waiting)}>
        <SessionEnded />
        <BusyNotice />
        {page && !mayOpen(page, role) ? (
          <Refused page={page} role={role} />
        ) : View ? (
          <View key={page.path} session={session} />
        ) : (
          <NotFound />
        )}
      </Shell>
    </SignedInAs>
  );
}
