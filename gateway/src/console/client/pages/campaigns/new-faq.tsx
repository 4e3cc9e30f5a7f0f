import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { CAMPAIGN_COUNTS, CAMPAIGN_LIMITS as MAX } from '../../../../api-contract.js';
import type { Campaign } from '../../answers.js';
import { call, get } from '../../api.js';
import { useAction } from '../../components/action.js';
import { ChangedElsewhere, ifMatch, useChangedElsewhere } from '../../components/changed-elsewhere.js';
import { FormStatus } from '../../components/form.js';
import { LongText } from '../../components/long-text.js';
import { Button } from '../../components/button.js';

/** Whether the campaign takes one more FAQ. */
export const roomForFaq = (campaign: Campaign): boolean => campaign.bot.faqs.length < CAMPAIGN_COUNTS.faqs;

/**
 * A new FAQ of the campaign, its question and answer as a person writes them (given a first draft), saved after the
 * campaign's others (PATCH /v1/campaigns/{id}); nothing when the campaign holds as many FAQs as it may. The save
 * sends every FAQ of the campaign as it was loaded, so it changes only that version (If-Match): an FAQ or any other
 * change saved meanwhile is not undone. The campaign is then read again, and the FAQ typed here saved after its new
 * FAQs.
 */
export function NewFaqForm(props: {
  campaign: Campaign;
  id: string;
  question: string;
  answer?: string;
  /** The form's accessible name, and what is said above it. */
  label?: string;
  intro?: ComponentChildren;
  /** What is said under the answer as it is written (the draft, then each edit). */
  answerNote?: (answer: string) => ComponentChildren;
  submit: { text: string; class: 'primary' | 'secondary' };
  done: string;
  onSaved: (campaign: Campaign) => void;
  /** The campaign read again after a change made elsewhere refused the save. */
  onLoaded: (campaign: Campaign) => void;
}) {
  const [question, setQuestion] = useState(props.question);
  const [answer, setAnswer] = useState(props.answer ?? '');
  const saving = useAction();
  const changed = useChangedElsewhere();
  const reloading = useAction();
  if (!roomForFaq(props.campaign)) return null;
  const path = `/v1/campaigns/${encodeURIComponent(props.campaign.id)}`;
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    const faqs = [...props.campaign.bot.faqs, { question: question.trim(), answer: answer.trim() }];
    void saving.run(
      changed.watch(() => call<Campaign>('PATCH', path, { bot: { faqs } }, ifMatch(props.campaign.version))),
      props.done,
      props.onSaved,
    );
  };
  const reload = () =>
    reloading.run(
      () => get<Campaign>(path),
      '',
      (campaign) => {
        changed.done();
        props.onLoaded(campaign);
      },
    );
  return (
    <form onSubmit={save} aria-label={props.label}>
      {props.intro}
      <LongText
        id={`${props.id}-question`}
        label="FAQ question"
        value={question}
        onChange={setQuestion}
        required
        max={MAX.faqQuestion}
      />
      <LongText
        id={`${props.id}-answer`}
        label="FAQ answer"
        value={answer}
        onChange={setAnswer}
        required
        max={MAX.faqAnswer}
      />
      {props.answerNote?.(answer)}
      <Button type="submit" class={props.submit.class} unavailable={saving.busy}>
        {props.submit.text}
      </Button>
      {changed.changed && (
        <ChangedElsewhere reload="Reload the campaign" busy={reloading.busy} onReload={reload}>
          This campaign was changed after this page loaded it (by someone else, or in another tab), so the FAQ was not
          saved: saving it would have undone that change. Reload the campaign, then save the FAQ again: what you typed
          stays.
        </ChangedElsewhere>
      )}
      <FormStatus error={saving.error ?? reloading.error} done={saving.done} />
    </form>
  );
}
