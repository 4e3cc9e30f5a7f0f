import { useEffect, useState } from 'preact/hooks';
import { answersOnly, canAct } from '../../../../api-contract.js';
import type { Campaign, CampaignWithReach, List, Unreachable } from '../../answers.js';
import { get } from '../../api.js';
import { Panel } from '../../components/form.js';
import { Loading } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import type { SessionInfo } from '../../session.js';
import { allPages, Pager, usePaged } from '../lists/paged.js';
import { ItemLink, useSelected } from '../lists/selection.js';
import { BotTestPanel } from './bot-test.js';
import { CHANNEL_LABEL, draftOf, NEW_DRAFT, STATUS_LABEL } from './campaign.js';
import { CampaignFacts } from './campaign-facts.js';
import { CampaignForm, type ReachOutcome } from './campaign-form.js';
import { OpeningsPanel } from './openings-panel.js';
import { UNREACHABLE_ANCHOR, UnreachableNotice } from './reach.js';
import { UnreachablePanel } from './unreachable-contacts.js';
import { PreviewPanel } from './preview.js';
import { UnansweredPanel } from './unanswered.js';
import { ArchivePanel } from './archive-panel.js';

/** The ?id= of the form for a campaign not yet created. */
const NEW = 'new';

/**
 * The account's campaigns, a page at a time, and one campaign opened with every setting, its opening message previewed
 * for a contact (Messenger and Instagram campaigns have none) and its bot tried out. An agent reads them and tries
 * their bot; creating and changing them (going Live included) is for admins and the owner, as the API has it.
 */
export function CampaignsPage({ session }: { session: SessionInfo }) {
  const readOnly = !canAct(session.member.role, 'admin');
  const { selected, select } = useSelected();
  const [lists, setLists] = useState<List[]>([]);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  // What messaging the list's contacts did as a new campaign was created Live, for its page to say.
  const [reach, setReach] = useState<ReachOutcome | undefined>(undefined);
  // The table shows the campaigns in use, or, asked for, the archived ones.
  const [archived, setArchived] = useState(false);
  useEffect(() => void allPages<List>('/v1/lists').then((r) => setLists(r.items)), []);
  const open = (id: string | null) => {
    setNotice(undefined);
    setReach(undefined);
    select(id);
  };
  if (selected === NEW && !readOnly) {
    return (
      <>
        <PageTitle>New campaign</PageTitle>
        <BackLink onBack={() => open(null)} />
        <CampaignForm
          draft={NEW_DRAFT()}
          lists={lists}
          onSaved={(c, _created, reached) => {
            setNotice(
              answersOnly(c.channel)
                ? 'Campaign created. Try its bot below.'
                : 'Campaign created. Preview its opening message and try its bot below.',
            );
            setReach(reached);
            select(c.id, { replace: true });
          }}
        />
      </>
    );
  }
  if (selected && selected !== NEW)
    return (
      <CampaignView
        key={selected}
        id={selected}
        lists={lists}
        notice={notice}
        reach={reach}
        readOnly={readOnly}
        onBack={() => open(null)}
      />
    );
  return (
    <CampaignTable
      key={String(archived)}
      lists={lists}
      open={open}
      readOnly={readOnly}
      archived={archived}
      onArchived={setArchived}
    />
  );
}

function BackLink(props: { onBack: () => void }) {
  return (
    <p>
      <a
        href={location.pathname}
        onClick={(e) => {
          e.preventDefault();
          props.onBack();
        }}
      >
        ← All campaigns
      </a>
    </p>
  );
}

/** What an agent is told where an admin finds the controls to change campaigns. */
const READ_ONLY_NOTE =
  'Your role (agent) reads campaigns and tries their bot; an admin or the account’s owner creates and changes them.';

/** Why an admin reads an archived campaign's settings as text. */
const ARCHIVED_NOTE = 'An archived campaign is read as text: bring it back (above) to change it.';

function CampaignTable(props: {
  lists: List[];
  open: (id: string) => void;
  readOnly: boolean;
  /** Whether the table shows the archived campaigns, which the API lists only when asked for. */
  archived: boolean;
  onArchived: (archived: boolean) => void;
}) {
  const paged = usePaged<Campaign>(props.archived ? '/v1/campaigns?status=archived' : '/v1/campaigns');
  const listName = (id: string | null) => (id ? (props.lists.find((l) => l.id === id)?.name ?? id) : '—');
  return (
    <>
      <PageTitle>Campaigns</PageTitle>
      {props.readOnly ? (
        <p class="current">{READ_ONLY_NOTE}</p>
      ) : (
        <p>
          <button type="button" class="primary" onClick={() => props.open(NEW)}>
            New campaign
          </button>
        </p>
      )}
      <Panel title={props.archived ? 'Archived campaigns' : 'Your campaigns'} id="campaigns-heading">
        <p>
          <button type="button" class="secondary" onClick={() => props.onArchived(!props.archived)}>
            {props.archived ? 'Show campaigns in use' : 'Show archived campaigns'}
          </button>
        </p>
        {!paged.items ? (
          <Loading error={paged.error} />
        ) : paged.items.length === 0 ? (
          <p>{props.archived ? 'No archived campaigns.' : 'No campaigns yet.'}</p>
        ) : (
          <div class="table-scroll" role="region" aria-label="Table of your campaigns" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Channel</th>
                  <th scope="col">List</th>
                  <th scope="col">Send rate</th>
                </tr>
              </thead>
              <tbody>
                {paged.items.map((c) => (
                  <tr key={c.id}>
                    <td>
                      <ItemLink id={c.id} select={props.open}>
                        {c.name}
                      </ItemLink>
                    </td>
                    <td>
                      <span class={`badge status-${c.status}`}>{STATUS_LABEL[c.status]}</span>
                    </td>
                    <td>
                      {CHANNEL_LABEL[c.channel]}
                      {c.channel === 'custom' && c.customChannel ? ` (${c.customChannel})` : ''}
                    </td>
                    <td>{listName(c.listId)}</td>
                    <td>{c.sendRate}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager label="Campaign pages" paged={paged} />
      </Panel>
    </>
  );
}

function CampaignView(props: {
  id: string;
  lists: List[];
  notice?: string;
  reach?: ReachOutcome;
  readOnly: boolean;
  onBack: () => void;
}) {
  const [campaign, setCampaign] = useState<Campaign | undefined>(undefined);
  const [unreachable, setUnreachable] = useState<Unreachable | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [reach, setReach] = useState<ReachOutcome | undefined>(props.reach);
  const load = async () => {
    const res = await get<CampaignWithReach>(`/v1/campaigns/${encodeURIComponent(props.id)}`);
    if (!res.ok) return void setError(res.error);
    setCampaign(res.data);
    setUnreachable(res.data!.unreachable);
    return res.data;
  };
  useEffect(() => void load(), [props.id]);
  // Come from a link to the contacts not reached (the funnel's notice): their panel is shown once it is drawn.
  const total = unreachable?.total ?? 0;
  useEffect(() => {
    if (total > 0 && location.hash === `#${UNREACHABLE_ANCHOR}`)
      document.getElementById(UNREACHABLE_ANCHOR)?.scrollIntoView();
  }, [total]);
  // Reaching the list counts the contacts it could not reach: the notice above reads them again.
  const reached = (outcome: ReachOutcome | undefined) => {
    setReach(outcome);
    if (outcome?.reached) void load();
  };
  const archived = campaign?.status === 'archived';
  if (!campaign)
    return (
      <>
        <PageTitle>Campaign</PageTitle>
        <BackLink onBack={props.onBack} />
        <Loading error={error} />
      </>
    );
  return (
    <>
      <PageTitle>{campaign.name}</PageTitle>
      <BackLink onBack={props.onBack} />
      <p class="current">
        <span class={`badge status-${campaign.status}`}>{STATUS_LABEL[campaign.status]}</span>{' '}
        {CHANNEL_LABEL[campaign.channel]} campaign, last saved {new Date(campaign.updatedAt).toLocaleString()}.
      </p>
      {/* One place for both states, so that what archiving or bringing back did is still said once it is done. */}
      {!props.readOnly && <ArchivePanel campaign={campaign} onChanged={setCampaign} />}
      <UnreachableNotice campaign={campaign} unreachable={unreachable} onCampaignPage />
      {!answersOnly(campaign.channel) && (
        <OpeningsPanel campaign={campaign} admin={!props.readOnly} reach={reach} onReached={reached} />
      )}
      <Panel title="Settings" id="settings-heading">
        {props.readOnly || archived ? (
          <>
            <p class="current">{props.readOnly ? READ_ONLY_NOTE : ARCHIVED_NOTE}</p>
            <CampaignFacts campaign={campaign} lists={props.lists} />
          </>
        ) : (
          <CampaignForm
            campaign={campaign}
            draft={draftOf(campaign)}
            lists={props.lists}
            notice={props.notice}
            onReload={load}
            onSaved={(c, _created, outcome) => {
              setCampaign(c);
              if (outcome) reached(outcome);
            }}
          />
        )}
      </Panel>
      {!answersOnly(campaign.channel) && <PreviewPanel campaignId={campaign.id} />}
      <BotTestPanel campaignId={campaign.id} />
      <UnansweredPanel campaign={campaign} readOnly={props.readOnly} onChanged={setCampaign} />
      {unreachable && unreachable.total > 0 && <UnreachablePanel key={unreachable.total} campaign={campaign} />}
    </>
  );
}
