import { useEffect, useState } from 'preact/hooks';
import type { Campaign, Conversation, Message } from '../../answers.js';
import { get } from '../../api.js';
import { NewFaqForm } from '../campaigns/new-faq.js';
import { faqAnswerOf, namesLeft, type ReplyNames } from '../../../faq-answer.js';
import { sameQuestion } from '../../../../normal-form.js';

/**
 * The bot handed this conversation off for want of an answer, and the team answered: the contact's question and the
 * team's answer (without the greeting, courtesies and sign-off meant for this contact: `names` are the contact's, the
 * team's and the business's), edited first, become an FAQ of the conversation's campaign, which the bot answers from
 * then on. A name of the team or the contact still in the answer is pointed out: the bot would say it to everyone.
 * Offered to admins (campaigns are theirs to change) until the campaign holds that question, compared as the API
 * compares a campaign's FAQs (case, accents and punctuation aside): it would refuse the same question again.
 */
export function SaveAsFaq(props: { conversation: Conversation; messages: Message[]; names: ReplyNames }) {
  const { handoff, campaignId } = props.conversation;
  const asked = handoff?.reason.startsWith('bot_') ? handoff.message : null;
  const answer = handoff
    ? props.messages
        .filter((m) => m.direction === 'outgoing' && m.author === 'team' && m.createdAt >= handoff.at)
        .at(-1)
    : undefined;
  const [campaign, setCampaign] = useState<Campaign | undefined>(undefined);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const offered = Boolean(asked && answer && campaignId);
  useEffect(() => {
    if (offered)
      void get<Campaign>(`/v1/campaigns/${encodeURIComponent(campaignId!)}`).then(
        (res) => res.ok && setCampaign(res.data),
      );
  }, [offered, campaignId]);
  if (saved)
    return (
      <p class="current" role="status">
        {saved}
      </p>
    );
  if (!offered || !campaign || campaign.bot.faqs.some((f) => sameQuestion(f.question, asked!))) return null;
  const done = `Saved as an FAQ of “${campaign.name}”: its bot answers this from now on.`;
  return (
    <NewFaqForm
      campaign={campaign}
      id="faq"
      question={asked!}
      answer={faqAnswerOf(answer!.body, props.names)}
      label="Save as FAQ"
      answerNote={(text) => <NamesLeft names={namesLeft(text, props.names)} />}
      intro={
        <p>
          The bot could not answer this; your team did. Save it as an FAQ of “{campaign.name}”, so the bot answers it
          next time:
        </p>
      }
      submit={{ text: 'Save as FAQ', class: 'secondary' }}
      done={done}
      onSaved={(c) => {
        setCampaign(c);
        setSaved(done);
      }}
      onLoaded={setCampaign}
    />
  );
}

/** Names the bot would give every contact who asks: the person saving decides whether they belong in the answer. */
function NamesLeft(props: { names: string[] }) {
  if (!props.names.length) return null;
  const list = props.names.map((n) => `“${n}”`).join(', ');
  return (
    <p class="note" role="status">
      The answer names {list}: the bot would say {props.names.length === 1 ? 'it' : 'them'} to every contact who asks.
      Take {props.names.length === 1 ? 'it' : 'them'} out unless that is meant.
    </p>
  );
}
