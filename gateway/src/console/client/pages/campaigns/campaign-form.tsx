import { useEffect, useState } from 'preact/hooks';
import {
  answersOnly,
  CAMPAIGN_COUNTS as COUNT,
  CAMPAIGN_LIMITS as MAX,
  type MetaChannel,
} from '../../../../api-contract.js';
import type { Campaign, List, OpeningPrice, Reached } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { useIdempotencyKey } from '../../components/idempotency-key.js';
import { ChangedElsewhere, ifMatch, useChangedElsewhere } from '../../components/changed-elsewhere.js';
import { FormStatus } from '../../components/form.js';
import { LongText } from '../../components/long-text.js';
import { numbered } from '../../components/problems.js';
import {
  bodyOf,
  CAMPAIGN_LABELS as L,
  CHANNEL_LABEL,
  draftOf,
  STATUS_LABEL,
  TYPE_LABEL,
  type Draft,
} from './campaign.js';
import { Check, Choice, Rows, Text } from './inputs.js';
import { WindowFields } from './window-fields.js';
import { liveWarning } from './reach.js';
import { countList, reachExisting, ReachQuestion, type ListCount } from './reach-existing.js';
import { cannotPay, emptyListWarning, quoteOpening } from './opening-cost.js';
import { CUSTOM_PREFIX } from '../../../../api-contract.js';
import { Button } from '../../components/button.js';

/** Where contacts write to a Meta platform's business: what an answer-only campaign answers. */
const META_INBOX: Record<MetaChannel, string> = { messenger: 'your Page', instagram: 'your Instagram account' };

/** Why a Messenger or Instagram campaign has no opening message, in one line. */
const answerOnlyNote = (channel: MetaChannel) =>
  `${CHANNEL_LABEL[channel]} lets a business answer, never write first: this campaign answers those who write to ${META_INBOX[channel]}.`;

const PERSONALIZE_HINT = `Contact fields are filled in: {{first_name|there}} (with a fallback), {{last_name}}, {{phone}}, {{email}}, {{${CUSTOM_PREFIX}city}} for a custom field named city.`;

/** What messaging the contacts already on the list did, when asked as the campaign went Live. */
export interface ReachOutcome {
  reached?: Reached;
  error?: string;
}

/**
 * Every setting of a campaign (spec §2.3 and the conversation engine), saved with POST /v1/campaigns for a new
 * one and PATCH /v1/campaigns/{id} for an existing one. The API judges everything, including whether it can go
 * Live (CAMPAIGN_CANNOT_SEND and why): the form does not stop a save (noValidate) and shows every problem the API
 * names under the Save button, by the labels of the inputs. Long texts count their characters against the API's
 * limits as they are typed. Going Live with contacts on the list asks whether they get the opening message too.
 * The form sends every setting, so a save changes only the version of the campaign it loaded (If-Match): one changed
 * meanwhile (by someone else, in another tab, by an FAQ added below) is not overwritten; the form keeps what was
 * typed and offers to reload. Changed on this page while nothing is typed in the form, the form follows.
 * For admins and the owner: an agent reads the campaign as text (campaign-facts).
 */
export function CampaignForm(props: {
  campaign?: Campaign;
  draft: Draft;
  lists: List[];
  onSaved: (c: Campaign, created: boolean, reach?: ReachOutcome) => void;
  /** Reads the campaign again, for the page and the form: undefined when it cannot be read. */
  onReload?: () => Promise<Campaign | undefined>;
  notice?: string;
}) {
  const [d, setD] = useState<Draft>(props.draft);
  // The version the form was filled from, and what it held then (to tell whether anything was typed since).
  const [loaded, setLoaded] = useState({ version: props.campaign?.version, draft: props.draft });
  const changed = useChangedElsewhere();
  const [reloading, setReloading] = useState(false);
  const adopt = (c: Campaign) => {
    const draft = draftOf(c);
    setD(draft);
    setLoaded({ version: c.version, draft });
    changed.done();
  };
  const version = props.campaign?.version;
  useEffect(() => {
    if (props.campaign && version !== loaded.version && JSON.stringify(d) === JSON.stringify(loaded.draft))
      adopt(props.campaign);
  }, [version]);
  const reload = async () => {
    setReloading(true);
    const fresh = await props.onReload?.();
    setReloading(false);
    if (fresh) adopt(fresh);
  };
  const [warning, setWarning] = useState<string | undefined>(undefined);
  const [asking, setAsking] = useState<ListCount | undefined>(undefined);
  const [cost, setCost] = useState<OpeningPrice | undefined>(undefined);
  const saving = useAction(L);
  const creating = useIdempotencyKey();
  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) =>
      setD((old) => ({ ...old, [key]: value }));
  const setBot =
    <K extends keyof Draft['bot']>(key: K) =>
    (value: Draft['bot'][K]) =>
      setD((old) => ({ ...old, bot: { ...old.bot, [key]: value } }));
  const existing = props.campaign;

  /** Saves the campaign, then (`reach`) messages the contacts already on its list. */
  const submit = async (reach: boolean) => {
    setAsking(undefined);
    const body = bodyOf(d);
    // A new campaign goes with an Idempotency-Key kept until it is created: created again after an answer that never
    // arrived, it is made once.
    const request = changed.watch(() =>
      existing
        ? call<Campaign>(
            'PATCH',
            `/v1/campaigns/${encodeURIComponent(existing.id)}`,
            body,
            loaded.version === undefined ? {} : ifMatch(loaded.version),
          )
        : call<Campaign>('POST', '/v1/campaigns', body, creating.headers(body)),
    );
    let saved = undefined as Campaign | undefined;
    await saving.run(request, existing ? 'Campaign saved.' : 'Campaign created.', (c) => (saved = c));
    if (!saved) return;
    setLoaded({ version: saved.version, draft: d });
    const reached = reach ? await reachExisting(saved.id) : undefined;
    props.onSaved(
      saved,
      !existing,
      reached &&
        (reached.ok
          ? { reached: reached.data }
          : {
              error: `The campaign is Live, but the contacts already on the list were not messaged: ${reached.error}`,
            }),
    );
  };
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    const goingLive = d.status === 'live' && existing?.status !== 'live';
    void (async () => {
      // Warned once: saving again goes Live anyway.
      const warn = goingLive && !warning ? await liveWarning(d) : undefined;
      setWarning(warn);
      if (warn) return;
      // Asked unless the warning said the list cannot be reached: then it goes Live for new contacts alone.
      const count =
        goingLive && !warning && d.listId && !answersOnly(d.channel) ? await countList(d.listId) : undefined;
      const price = goingLive && !warning && !answersOnly(d.channel) ? await quoteOpening(d) : undefined;
      setCost(price);
      if (count && count.count > 0) setAsking(count);
      else if (cannotPay(price, 1)) setWarning(emptyListWarning(price));
      else await submit(false);
    })();
  };
  const listKnown = d.listId === '' || props.lists.some((l) => l.id === d.listId);
  const meta = answersOnly(d.channel) ? d.channel : undefined;

  return (
    <form onSubmit={save} class="campaign-form" aria-label="Campaign settings" noValidate>
      <fieldset>
        <legend>Campaign</legend>
        <Text id="c-name" label={L.name} value={d.name} onChange={set('name')} required max={MAX.name} />
        <Choice
          id="c-type"
          label={L.type}
          value={d.type}
          onChange={set('type')}
          options={Object.entries(TYPE_LABEL) as Array<[Campaign['type'], string]>}
        />
        <Text
          id="c-language"
          label={L.language}
          value={d.language}
          onChange={set('language')}
          hint="The language the bot answers in, such as en, es or es-MX."
        />
        <div class="field">
          <label for="c-list">{L.listId}</label>
          <p class="hint" id="c-list-hint">
            {meta
              ? `${CHANNEL_LABEL[meta]} contacts added to this list cannot be reached first: they hear from this campaign once they write to ${META_INBOX[meta]}.`
              : 'Contacts added to this list get the opening message.'}
          </p>
          <select
            id="c-list"
            value={d.listId}
            aria-describedby="c-list-hint"
            onChange={(e) => {
              const listId = e.currentTarget.value;
              // A new campaign linked to a list triggers on its new contacts, as the API has it by default.
              setD((old) => ({ ...old, listId, ...(existing ? {} : { triggerOnNewContacts: listId !== '' }) }));
            }}
          >
            <option value="">No list</option>
            {props.lists.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
            {!listKnown && <option value={d.listId}>{d.listId}</option>}
          </select>
        </div>
        {!meta && (
          <Check
            id="c-trigger"
            label={L.triggerOnNewContacts}
            checked={d.triggerOnNewContacts}
            onChange={set('triggerOnNewContacts')}
            hint="Each contact added to the list (by hand, by the API or by an import) gets the opening message."
          />
        )}
        {!meta && d.status === 'live' && d.listId !== '' && !d.triggerOnNewContacts && (
          <p class="warning" role="status">
            This campaign is Live, but new contacts of its list get no opening message: turn on the trigger above.
          </p>
        )}
        <fieldset>
          <legend>{L.status}</legend>
          {/* Archiving has its own panel, behind a second step: the form never archives by a radio left checked. */}
          {(Object.entries(STATUS_LABEL) as Array<[Campaign['status'], string]>)
            .filter(([value]) => value !== 'archived')
            .map(([value, label]) => (
              <label class="choice" key={value}>
                <input
                  type="radio"
                  name="c-status"
                  value={value}
                  checked={d.status === value}
                  onChange={() => set('status')(value)}
                />
                {label}
              </label>
            ))}
        </fieldset>
      </fieldset>

      <fieldset>
        <legend>{meta ? 'Channel' : 'Channel and opening message'}</legend>
        <Choice
          id="c-channel"
          label={L.channel}
          value={d.channel}
          onChange={set('channel')}
          options={Object.entries(CHANNEL_LABEL) as Array<[Campaign['channel'], string]>}
          note={meta && answerOnlyNote(meta)}
        />
        {d.channel === 'custom' && (
          <Text
            id="c-custom-channel"
            label={L.customChannel}
            value={d.customChannel}
            onChange={set('customChannel')}
            max={MAX.customChannel}
            hint="The label your system knows the channel by, sent with each reply to the Custom Channel Webhook."
          />
        )}
        {!meta && (
          <LongText
            id="c-opening"
            label={L.openingMessage}
            value={d.openingMessage}
            onChange={set('openingMessage')}
            rows={4}
            hint={PERSONALIZE_HINT}
            max={MAX.openingMessage}
          />
        )}
        {d.channel === 'whatsapp' && (
          <fieldset>
            <legend>WhatsApp templates</legend>
            <Text
              id="c-opening-template"
              label={L.openingTemplate}
              value={d.openingTemplate}
              onChange={set('openingTemplate')}
              max={MAX.templateName}
              hint="The approved template the opening message goes out as (a Content SID “HX…” on Twilio). Empty: the opening message as text."
            />
            <ParamRows
              id="c-opening-params"
              legend={L.openingTemplateParams}
              rows={d.openingTemplateParams}
              onChange={set('openingTemplateParams')}
            />
            <Text
              id="c-reengagement-template"
              label={L.reengagementTemplate}
              value={d.reengagementTemplate}
              onChange={set('reengagementTemplate')}
              max={MAX.templateName}
              hint="Sent instead of free text outside WhatsApp’s 24-hour window. Empty: such messages are skipped."
            />
            <ParamRows
              id="c-reengagement-params"
              legend={L.reengagementTemplateParams}
              rows={d.reengagementTemplateParams}
              onChange={set('reengagementTemplateParams')}
            />
            <Text
              id="c-template-language"
              label={L.templateLanguage}
              value={d.templateLanguage}
              onChange={set('templateLanguage')}
              placeholder="en_US"
              hint="The templates’ WhatsApp language code. Empty: from the campaign’s language."
            />
          </fieldset>
        )}
      </fieldset>

      <fieldset>
        <legend>Pace and hours</legend>
        <Text
          id="c-send-rate"
          label={L.sendRate}
          value={d.sendRate}
          onChange={set('sendRate')}
          hint="How fast queued opening messages go, such as 30/m or 500/h. The first 3 of a burst go at once."
        />
        <Check
          id="c-window-on"
          label="Send only within a sending window"
          checked={d.windowOn}
          onChange={set('windowOn')}
        />
        {d.windowOn && (
          <WindowFields
            id="c-window"
            window={d.window}
            onChange={set('window')}
            daysHint="Days of the time zone’s week. Messages due on a day left out wait for the next day checked; a window past midnight closes the next morning."
          />
        )}
      </fieldset>

      <fieldset>
        <legend>Follow-ups</legend>
        <Check
          id="c-followups-on"
          label={L['followUps.enabled']}
          checked={d.followUps.enabled}
          onChange={(enabled) => set('followUps')({ ...d.followUps, enabled })}
        />
        <Rows
          id="c-steps"
          legend={L['followUps.steps']}
          noun="Step"
          rows={d.followUps.steps}
          max={COUNT.followUps}
          blank={() => ({ after: '1d', body: '' })}
          onChange={(steps) => set('followUps')({ ...d.followUps, steps })}
          hint={
            meta
              ? 'Each step waits this long after the message before it, the first after the bot’s answer (30m, 2h, 1d), and is cancelled when the contact writes. Meta takes them only within 24 hours of the contact’s last message.'
              : 'Each step waits this long after the message before it (30m, 2h, 1d), and is cancelled when the contact writes.'
          }
        >
          {(step, setStep, n, id) => (
            <>
              <Text
                id={`${id}-after`}
                label={numbered(L['followUps.steps.#.after'], n)}
                value={step.after}
                onChange={(after) => setStep({ ...step, after })}
              />
              <LongText
                id={`${id}-body`}
                label={numbered(L['followUps.steps.#.body'], n)}
                value={step.body}
                onChange={(body) => setStep({ ...step, body })}
                max={MAX.followUpBody}
              />
            </>
          )}
        </Rows>
        {d.channel === 'whatsapp' &&
          d.followUps.enabled &&
          d.followUps.steps.length > 0 &&
          !d.reengagementTemplate.trim() && (
            <p class="warning" role="status">
              Without a re-engagement template, a follow-up to a contact who has not written in the last 24 hours is
              skipped (WhatsApp then takes only an approved template): every follow-up to a contact who has not answered
              the opening message.
            </p>
          )}
      </fieldset>

      <fieldset>
        <legend>Bot</legend>
        <Check id="c-bot-active" label={L['bot.active']} checked={d.bot.active} onChange={setBot('active')} />
        <LongText
          id="c-bot-instructions"
          label={L['bot.instructions']}
          value={d.bot.instructions}
          onChange={setBot('instructions')}
          rows={4}
          max={MAX.instructions}
          hint="How the bot talks and what it must never do."
        />
        <LongText
          id="c-bot-company"
          label={L['bot.companyInfo']}
          value={d.bot.companyInfo}
          onChange={setBot('companyInfo')}
          rows={4}
          max={MAX.companyInfo}
        />
        <Rows
          id="c-faqs"
          legend={L['bot.faqs']}
          noun="FAQ"
          rows={d.bot.faqs}
          max={COUNT.faqs}
          blank={() => ({ question: '', answer: '' })}
          onChange={setBot('faqs')}
        >
          {(faq, setFaq, n, id) => (
            <>
              <Text
                id={`${id}-q`}
                label={numbered(L['bot.faqs.#.question'], n)}
                value={faq.question}
                onChange={(question) => setFaq({ ...faq, question })}
                max={MAX.faqQuestion}
              />
              <LongText
                id={`${id}-a`}
                label={numbered(L['bot.faqs.#.answer'], n)}
                value={faq.answer}
                onChange={(answer) => setFaq({ ...faq, answer })}
                max={MAX.faqAnswer}
              />
            </>
          )}
        </Rows>
        <Rows
          id="c-resources"
          legend={L['bot.resources']}
          noun="Resource"
          rows={d.bot.resources}
          max={COUNT.resources}
          blank={() => ''}
          onChange={setBot('resources')}
          hint="Facts and links the bot may use in its answers: prices, opening hours, a booking page."
        >
          {(text, setText, n, id) => (
            <LongText
              id={id}
              label={numbered(L['bot.resources.#'], n)}
              value={text}
              onChange={setText}
              max={MAX.resource}
            />
          )}
        </Rows>
        <Text
          id="c-bot-goal"
          label={L['bot.goal']}
          value={d.bot.goal}
          onChange={setBot('goal')}
          max={MAX.goal}
          hint="What counts as success, such as “the contact books a visit”."
        />
        <LongText
          id="c-bot-handoff"
          label={L['bot.handoffMessage']}
          value={d.bot.handoffMessage ?? ''}
          onChange={setBot('handoffMessage')}
          rows={2}
          max={MAX.handoffMessage}
          hint="What the contact is told when a person takes over (they ask for one, or the bot cannot answer). Empty: the account’s hand-off message (Settings, Bot provider), else “Thanks for your message! A member of our team will get back to you shortly.”, in the campaign’s language."
        />
      </fieldset>

      {warning && (
        <p class="warning" role="alert">
          {warning}
        </p>
      )}
      {asking ? (
        <ReachQuestion
          campaign={{ sendRate: d.sendRate, sendingWindow: d.windowOn ? d.window : null }}
          count={asking}
          cost={cost}
          also
          busy={saving.busy}
          yes="Go Live and message them"
          no="Go Live, new contacts only"
          onYes={() => void submit(true)}
          onNo={() => void submit(false)}
          onCancel={() => setAsking(undefined)}
        />
      ) : (
        <Button type="submit" class="primary" unavailable={saving.busy}>
          {warning ? 'Go Live anyway' : existing ? 'Save campaign' : 'Create campaign'}
        </Button>
      )}
      {changed.changed && (
        <ChangedElsewhere reload="Reload the campaign" busy={reloading} onReload={reload}>
          This campaign was changed after you opened it (by someone else, in another tab or elsewhere on this page), so
          your changes were not saved: they would have undone that change. What you typed is still in the form.
          Reloading shows the campaign as it is now in its place.
        </ChangedElsewhere>
      )}
      <FormStatus error={saving.error} done={saving.done ?? props.notice} />
    </form>
  );
}

function ParamRows(props: { id: string; legend: string; rows: string[]; onChange: (rows: string[]) => void }) {
  return (
    <Rows
      id={props.id}
      legend={props.legend}
      noun="Parameter"
      rows={props.rows}
      max={COUNT.templateParams}
      blank={() => ''}
      onChange={props.onChange}
      hint="The template’s {{1}}, {{2}} … in order; contact fields such as {{first_name}} are filled in."
    >
      {(value, setValue, n, id) => (
        <Text id={id} label={`Parameter {{${n}}}`} value={value} onChange={setValue} max={MAX.templateParam} />
      )}
    </Rows>
  );
}
