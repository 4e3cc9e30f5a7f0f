import { useState } from 'preact/hooks';
import { TEXT_LIMITS } from '../../../../api-contract.js';
import type { BotTest } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Field, FormStatus, Panel } from '../../components/form.js';
import { LongText } from '../../components/long-text.js';
import { Button } from '../../components/button.js';

/** A FAQ or resource the bot's answer rests on, and how it used it. */
type Source = BotTest['basis']['sources'][number];

/** How the answer used a source, in words; an offered FAQ is told by how many were offered. */
function useOf(source: Source, offered: number): string {
  switch (source.use) {
    case 'answer':
      return 'Answered with the FAQ';
    case 'closest':
      return 'Closest FAQ, not close enough to answer with';
    case 'option':
      return offered > 1
        ? 'One of the FAQs that match alike, offered to choose from'
        : 'The FAQ the bot asks about, as it matches only part of the question';
    case 'covers':
      return 'A resource covers this better than any FAQ';
    case 'given':
      return 'Given to the AI to answer from';
  }
}

/** Why the bot hands over, as a sentence; the API's reason itself when it is new to the console. */
const HANDOFF_REASON: Record<string, string> = {
  bot_not_confident: 'no FAQ answers this with confidence',
  bot_no_knowledge: 'this campaign has no FAQs to answer from yet',
  bot_handoff: 'the AI decided a person should answer',
  contact_asked: 'the contact asks for a person',
};

/** Who answered, as a sentence: the FAQ bot, or the AI endpoint; and why the FAQ bot stood in, when it did. */
function answeredBy(answer: BotTest): string {
  if (answer.fallbackReason)
    return `The FAQ bot answered, standing in for the AI endpoint, which failed: ${answer.fallbackReason}${/[.!?]$/.test(answer.fallbackReason) ? '' : '.'}`;
  if (answer.provider === 'gateway')
    return 'Answered by the gateway itself, as it answers every contact who writes this, whatever the bot would say.';
  if (answer.provider === 'faq') return 'Answered by the FAQ bot, from this campaign’s FAQs.';
  if (answer.provider === 'openai') return 'Answered by the AI endpoint chosen in Settings › Bot provider.';
  return `Answered by the ${answer.provider} provider.`;
}

/** Ask the saved campaign's bot a question as a contact would: its answer, or its hand-off and why. Nothing is sent. */
/** Why the bot would send nothing, as the page says it. */
const UNANSWERED_BECAUSE = {
  bot_off: 'the bot is off for this campaign',
  campaign_paused: 'the campaign is paused',
  campaign_archived: 'the campaign is archived',
} as const;

export function BotTestPanel(props: { campaignId: string }) {
  const [answer, setAnswer] = useState<BotTest | undefined>(undefined);
  const [message, setMessage] = useState('');
  const asking = useAction({ message: 'Question', firstName: 'Contact’s first name' });
  const ask = (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const firstName = String(form.get('bot-first-name') ?? '').trim() || null;
    setAnswer(undefined);
    void asking.run(
      () =>
        call<BotTest>('POST', `/v1/campaigns/${encodeURIComponent(props.campaignId)}/bot/test`, { message, firstName }),
      'The bot answered. Nothing was sent.',
      setAnswer,
    );
  };
  return (
    <Panel title="Try the bot" id="bot-test-heading">
      <p>
        Ask what a contact might ask: the saved campaign’s bot answers here, and nothing is sent, stored or charged.
      </p>
      <form onSubmit={ask}>
        <LongText
          id="bot-question"
          label="Question"
          value={message}
          onChange={setMessage}
          required
          max={TEXT_LIMITS.botTestMessage}
        />
        <Field id="bot-first-name" label="Contact’s first name (optional)" />
        <Button type="submit" class="primary" unavailable={asking.busy}>
          Ask the bot
        </Button>
      </form>
      <FormStatus error={asking.error} done={asking.done} />
      {answer && <Answer answer={answer} />}
    </Panel>
  );
}

/** The bot's own answer, as the API gives it inside a test's answer. */
type BotReply = Extract<BotTest['reply'], { kind: 'unanswered' }>['botReply'];

function Answer({ answer }: { answer: BotTest }) {
  const { reply } = answer;
  return (
    <div class="bot-answer" role="region" aria-label="The bot’s answer">
      {reply.kind === 'opt_out' && (
        <>
          <p class="label">This is an opt-out: the contact would be unsubscribed before the bot reads it, and told:</p>
          <p class="message">{reply.body}</p>
        </>
      )}
      {reply.kind === 'help' && (
        <>
          <p class="label">
            This asks for help: the contact would be sent the help text of Settings, not the bot’s answer:
          </p>
          <p class="message">{reply.body}</p>
        </>
      )}
      {reply.kind === 'unanswered' ? (
        <>
          <p class="label">
            Nothing would be sent: {UNANSWERED_BECAUSE[reply.reason]}. The message would wait in the inbox for a person.
          </p>
          <p class="note">Once the bot answers again, it would answer this so:</p>
          <BotAnswer reply={reply.botReply} />
        </>
      ) : (
        <BotAnswer reply={reply} />
      )}
      <Basis basis={answer.basis} />
      <p class="hint">{answeredBy(answer)}</p>
    </div>
  );
}

/** What the bot answers: a reply, a question back, a hand-off, or nothing; the gateway's own hand-off too. */
function BotAnswer({ reply }: { reply: BotTest['reply'] | BotReply }) {
  return (
    <>
      {reply.kind === 'reply' && (
        <>
          <p class="label">The bot would answer:</p>
          <p class="message">{reply.body}</p>
          {reply.goalReached && <p class="note">The campaign’s goal would count as reached.</p>}
        </>
      )}
      {reply.kind === 'clarify' && (
        <>
          <p class="label">
            {reply.options.length > 1
              ? 'The bot would offer these FAQs to choose from, and answer the one the contact picks:'
              : 'The bot would ask whether the contact means this FAQ, and answer it if they say yes:'}
          </p>
          <p class="message">{reply.body}</p>
        </>
      )}
      {reply.kind === 'handoff' && (
        <>
          <p class="label">
            {reply.reason === 'contact_asked'
              ? 'The conversation would go to a person before the bot reads it: '
              : 'The bot would hand the conversation to a person: '}
            <span class="value handoff-reason">{HANDOFF_REASON[reply.reason] ?? reply.reason}</span>.
          </p>
          {reply.body && (
            <>
              <p class="label">The contact would be told:</p>
              <p class="message">{reply.body}</p>
            </>
          )}
        </>
      )}
      {reply.kind === 'silent' && <p class="label">The bot would say nothing to this.</p>}
    </>
  );
}

/** Why: the FAQs and resources the answer rests on, and the FAQ bot's confidence. */
function Basis({ basis }: { basis: BotTest['basis'] }) {
  if (!basis.sources.length) return null;
  const offered = basis.sources.filter((s) => s.use === 'option').length;
  return (
    <div class="bot-basis" aria-label="Why the bot answered so">
      <p class="label">
        Why
        {basis.confidence !== null ? (
          <>
            : confidence <span class="value bot-confidence">{Math.round(basis.confidence * 100)} %</span>
          </>
        ) : (
          ''
        )}
      </p>
      <ul>
        {basis.sources.map((source) => (
          <li key={`${source.kind}-${source.index}`}>
            {useOf(source, offered)}:{' '}
            {source.kind === 'faq' ? (
              <q>{source.question}</q>
            ) : (
              <q>{source.text.length > 160 ? `${source.text.slice(0, 160)}…` : source.text}</q>
            )}{' '}
            <span class="hint">
              ({source.kind === 'faq' ? 'FAQ' : 'resource'} {source.index + 1})
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
