import { useEffect, useState } from 'preact/hooks';
import { CAMPAIGN_COUNTS, CAMPAIGN_LIMITS as MAX } from '../../../../api-contract.js';
import { call, get } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus } from '../../components/form.js';
import { LongText } from '../../components/long-text.js';
import type { Conversation, Message } from './types.js';

interface Campaign {
  id: string;
  name: string;
  bot: { faqs: Array<{ question: string; answer: string }> };
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The bot handed this conversation off for want of an answer, and the team answered: the contact's question and the
 * team's answer, edited first, become an FAQ of the conversation's campaign, which the bot answers from then on.
 * Offered to admins (campaigns are theirs to change) until the campaign holds that question.
 */
export function SaveAsFaq(props: { conversation: Conversation; messages: Message[] }) {
  const { handoff, campaignId } = props.conversation;
  const asked = handoff?.reason.startsWith('bot_') ? handoff.message : null;
  const answer = handoff ? props.messages.filter((m) => m.direction === 'outgoing' && m.author === 'team' && m.createdAt >= handoff.at).at(-1) : undefined;
  const [campaign, setCampaign] = useState<Campaign | undefined>(undefined);
  const [question, setQuestion] = useState(asked ?? '');
  const [body, setBody] = useState(answer?.body ?? '');
  const saving = useAction();
  const offered = Boolean(asked && answer && campaignId);
  useEffect(() => {
    if (offered) void get<Campaign>(`/v1/campaigns/${encodeURIComponent(campaignId!)}`).then((res) => res.ok && setCampaign(res.data));
  }, [offered, campaignId]);
  useEffect(() => setBody((current) => current || answer?.body || ''), [answer?.id]);
  if (!offered || !campaign) return null;
  if (campaign.bot.faqs.some((f) => same(f.question, question))) {
    return saving.done ? <p class="current" role="status">{saving.done}</p> : null;
  }
  if (campaign.bot.faqs.length >= CAMPAIGN_COUNTS.faqs) return null;
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    const faqs = [...campaign.bot.faqs, { question: question.trim(), answer: body.trim() }];
    void saving.run(() => call<Campaign>('PATCH', `/v1/campaigns/${encodeURIComponent(campaign.id)}`, { bot: { faqs } }),
      `Saved as an FAQ of “${campaign.name}”: its bot answers this from now on.`, setCampaign);
  };
  return (
    <form class="inbox-save-faq" onSubmit={save} aria-label="Save as FAQ">
      <p>The bot could not answer this; your team did. Save it as an FAQ of “{campaign.name}”, so the bot answers it next time:</p>
      <LongText id="faq-question" label="FAQ question" value={question} onChange={setQuestion} required max={MAX.faqQuestion} />
      <LongText id="faq-answer" label="FAQ answer" value={body} onChange={setBody} required max={MAX.faqAnswer} />
      <button type="submit" class="secondary" disabled={saving.busy}>Save as FAQ</button>
      <FormStatus error={saving.error} done={saving.done} />
    </form>
  );
}
