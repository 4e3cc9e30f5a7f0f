import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { canAct } from '../../../api-contract.js';
import { mayOpen, PAGES, SIGN_IN_PATH, type ConsolePage } from '../../pages.js';
import { leaveFor } from '../api.js';
import { ROLE_LABEL } from '../roles.js';
import { Link } from '../router.js';
import { signOut, type SessionInfo } from '../session.js';
import { BalanceBanner, useCredits } from './balance.js';
import { WebhooksBanner } from './webhooks-banner.js';
import { Button } from './button.js';
import { SwitchAccount } from './switch-account.js';
import { AvailabilitySwitch } from './availability.js';

/**
 * The frame of every signed-in page: who is signed in (their name and role, on which account), **Away**
 * (components/availability), **Switch account**
 * when their password opens other accounts too (components/switch-account), sign-out, the
 * navigation, which offers only the pages their role opens, and the tab's title, which counts the conversations
 * `waiting` for the member's reply ("(3) Inbox · LeadChat console"). On a page change the page's
 * heading takes focus, so a screen reader announces where the user now is and Tab goes on from there.
 *
 * At phone width the navigation folds behind a Menu button (a disclosure: aria-expanded, aria-controls). Escape
 * folds it again and gives focus back to the button; choosing a page folds it, focus going to the page's heading.
 */
export function Shell(props: {
  session: SessionInfo;
  page?: ConsolePage;
  waiting?: string;
  children: ComponentChildren;
}) {
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const menuButton = useRef<HTMLButtonElement>(null);
  const [leaving, setLeaving] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const [switching, setSwitching] = useState(false);
  const switchButton = useRef<HTMLButtonElement>(null);
  const credits = useCredits();
  useLayoutEffect(() => {
    setMenuOpen(false);
    if (first.current) first.current = false;
    else main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [props.page]);
  useEffect(() => {
    document.title = `${props.waiting ? `(${props.waiting}) ` : ''}${props.page?.title ?? 'Page not found'} · LeadChat console`;
  }, [props.page, props.waiting]);
  const foldOnEscape = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !menuOpen) return;
    setMenuOpen(false);
    menuButton.current?.focus();
  };
  const leave = async () => {
    setLeaving(true);
    await leaveFor(SIGN_IN_PATH, signOut);
  };
  const { account, member } = props.session;
  const shown = PAGES.filter((p) => (!p.agencyOnly || account.type === 'agency') && mayOpen(p, member.role));
  const sections = [...new Set(shown.map((p) => p.section))];
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">LeadChat</span>
        <span class="who">
          <span class="sr-only">Signed in as </span>
          <span class="member">{member.name}</span> <span class="role">{ROLE_LABEL[member.role]}</span>
          <span class="sr-only">, on the account</span> <span class="name">{account.name}</span>{' '}
          <span class="email">{member.email}</span>
        </span>
        <AvailabilitySwitch initial={member.availability} />
        {props.session.otherAccounts.length > 0 && (
          <button type="button" class="secondary" ref={switchButton} onClick={() => setSwitching(true)}>
            Switch account
          </button>
        )}
        <Button type="button" class="secondary" onClick={leave} unavailable={leaving}>
          Sign out
        </Button>
        <button
          type="button"
          class="secondary menu-button"
          ref={menuButton}
          aria-expanded={menuOpen}
          aria-controls="console-nav"
          onClick={() => setMenuOpen(!menuOpen)}
          onKeyDown={foldOnEscape}
        >
          <span aria-hidden="true">☰</span> Menu
        </button>
      </header>
      {switching && (
        <SwitchAccount
          session={props.session}
          onClose={() => {
            setSwitching(false);
            switchButton.current?.focus();
          }}
        />
      )}
      <div class="layout">
        <nav id="console-nav" aria-label="Console" class={menuOpen ? 'open' : undefined} onKeyDown={foldOnEscape}>
          {sections.map((section) => (
            <div key={section}>
              <h2 class="nav-section">{section}</h2>
              <ul>
                {shown
                  .filter((p) => p.section === section)
                  .map((p) => (
                    <li key={p.path}>
                      <Link href={p.path} current={p === props.page}>
                        {p.title}
                      </Link>
                    </li>
                  ))}
              </ul>
            </div>
          ))}
        </nav>
        <main id="main" ref={main} tabIndex={-1}>
          <BalanceBanner credits={credits} />
          <WebhooksBanner mayManage={canAct(member.role, 'admin')} />
          {props.children}
        </main>
      </div>
    </>
  );
}

/** A page's heading: focusable from script only, to be focused on arrival. */
export const PageTitle = (props: { children: ComponentChildren }) => <h1 tabIndex={-1}>{props.children}</h1>;
