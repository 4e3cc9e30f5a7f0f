import { useEffect, useState } from 'preact/hooks';
import type { Campaign, Unanswered } from '../../answers.js';
import { get } from '../../api.js';
import { Panel } from '../../components/form.js';
import { Loading } from '../../components/load.js';
import { NewFaqForm, roomForFaq } from './new-faq.js';

/** A group of GET /v1/campaigns/{id}/unanswered: what the bot handed off for want of an answer, asked alike. */
type Group = Unanswered['data'][number];

/**
 * The questions the campaign's bot could not answer, the most asked first: where a business sees which FAQs to add.
 * An admin turns one into an FAQ here, question and answer as they write them.
 */
export function UnansweredPanel(props: {
  campaign: Campaign;
  readOnly: boolean;
  /** The campaign as it is now: an FAQ saved here, or read again after another change. */
  onChanged: (campaign: Campaign) => void;
}) {
  const { campaign } = props;
  const [groups, setGroups] = useState<Group[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    void get<Unanswered>(`/v1/campaigns/${encodeURIComponent(campaign.id)}/unanswered?limit=50`).then((res) => {
      if (!res.ok) return setError(res.error);
      setGroups(res.data!.data);
    });
  }, [campaign.id, campaign.updatedAt]);
  return (
    <Panel title="Questions the bot could not answer" id="unanswered-heading">
      {!groups ? (
        <Loading error={error} />
      ) : groups.length === 0 ? (
        <p>None yet: every question the bot hands off for want of an answer shows here.</p>
      ) : (
        <ul class="unanswered">
          {groups.map((g) => (
            <li key={g.question}>
              <p>
                <q class="message">{g.question}</q>{' '}
                <span class="hint">
                  asked {g.count === 1 ? 'once' : `${g.count} times`}, last {new Date(g.latestAt).toLocaleString()}
                </span>
              </p>
              {g.wordings.length > 0 && (
                <p class="hint">
                  Also asked as:{' '}
                  {g.wordings.map((w, i) => (
                    <span key={w}>
                      {i ? '; ' : ''}
                      <q>{w}</q>
                    </span>
                  ))}
                </p>
              )}
              {g.answeredBy ? (
                <p class="current">
                  Answered now by the FAQ <q>{g.answeredBy.question}</q>.
                </p>
              ) : (
                !props.readOnly && <AddFaq campaign={campaign} question={g.question} onChanged={props.onChanged} />
              )}
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

/** The question as an FAQ of the campaign, with the answer the admin writes, once they ask for the form. */
function AddFaq(props: { campaign: Campaign; question: string; onChanged: (campaign: Campaign) => void }) {
  const [open, setOpen] = useState(false);
  if (!roomForFaq(props.campaign)) return null;
  if (!open)
    return (
      <p>
        <button type="button" onClick={() => setOpen(true)}>
          Add as FAQ
        </button>
      </p>
    );
  return (
    <NewFaqForm
      campaign={props.campaign}
      id={`faq-${props.question.length}-${props.question.slice(0, 12).replace(/\W+/g, '-')}`}
      question={props.question}
      submit={{ text: 'Save FAQ', class: 'primary' }}
      done="FAQ added: the bot answers this from now on."
      onSaved={props.onChanged}
      onLoaded={props.onChanged}
    />
  );
}
