import type { ComponentChildren } from 'preact';
import { answersOnly } from '../../../../api-contract.js';
import type { Campaign, List } from '../../answers.js';
import { CAMPAIGN_LABELS as L, CHANNEL_LABEL, STATUS_LABEL, TYPE_LABEL, windowText } from './campaign.js';

/** A long text as written (its lines kept), or what its absence means. */
const Long = (props: { text: string | null | undefined; none: string }) =>
  props.text?.trim() ? <p class="message">{props.text}</p> : <span class="hint">{props.none}</span>;

function Fact(props: { label: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </>
  );
}

const yesNo = (on: boolean) => (on ? 'Yes' : 'No');

/**
 * A campaign's settings as text, for a role that reads campaigns and does not change them (an agent): no input that
 * would do nothing, every value as the API holds it, by the same labels the form uses.
 */
export function CampaignFacts(props: { campaign: Campaign; lists: List[] }) {
  const c = props.campaign;
  const meta = answersOnly(c.channel);
  const listName = c.listId ? (props.lists.find((l) => l.id === c.listId)?.name ?? c.listId) : 'No list';
  return (
    <div class="campaign-facts">
      <h3>Campaign</h3>
      <dl class="facts">
        <Fact label={L.name}>{c.name}</Fact>
        <Fact label={L.type}>{TYPE_LABEL[c.type]}</Fact>
        <Fact label={L.language}>{c.language}</Fact>
        <Fact label={L.listId}>{listName}</Fact>
        {!meta && <Fact label={L.triggerOnNewContacts}>{yesNo(c.triggerOnNewContacts)}</Fact>}
        <Fact label={L.status}>{STATUS_LABEL[c.status]}</Fact>
      </dl>
      <h3>{meta ? 'Channel' : 'Channel and opening message'}</h3>
      <dl class="facts">
        <Fact label={L.channel}>
          {CHANNEL_LABEL[c.channel]}
          {c.channel === 'custom' && c.customChannel ? ` (${c.customChannel})` : ''}
        </Fact>
        {!meta && (
          <Fact label={L.openingMessage}>
            <Long text={c.openingMessage} none="None" />
          </Fact>
        )}
        {c.channel === 'whatsapp' && (
          <>
            <Fact label={L.openingTemplate}>
              {c.openingTemplate
                ? `${c.openingTemplate}${c.openingTemplateParams.length ? ` (${c.openingTemplateParams.join(' | ')})` : ''}`
                : 'None: the opening message as text'}
            </Fact>
            <Fact label={L.reengagementTemplate}>
              {c.reengagementTemplate
                ? `${c.reengagementTemplate}${c.reengagementTemplateParams.length ? ` (${c.reengagementTemplateParams.join(' | ')})` : ''}`
                : 'None'}
            </Fact>
            <Fact label={L.templateLanguage}>{c.templateLanguage ?? 'From the campaign’s language'}</Fact>
          </>
        )}
      </dl>
      <h3>Pace and hours</h3>
      <dl class="facts">
        <Fact label={L.sendRate}>{c.sendRate}</Fact>
        <Fact label={L.sendingWindow}>{c.sendingWindow ? windowText(c.sendingWindow) : 'Any time'}</Fact>
      </dl>
      <h3>Follow-ups</h3>
      <dl class="facts">
        <Fact label={L['followUps.enabled']}>{yesNo(c.followUps.enabled)}</Fact>
        <Fact label={L['followUps.steps']}>
          {c.followUps.steps.length === 0 ? (
            'None'
          ) : (
            <ol>
              {c.followUps.steps.map((step, i) => (
                <li key={i}>
                  After {step.after}: <Long text={step.body} none="(no text)" />
                </li>
              ))}
            </ol>
          )}
        </Fact>
      </dl>
      <h3>Bot</h3>
      <dl class="facts">
        <Fact label={L['bot.active']}>{yesNo(c.bot.active)}</Fact>
        <Fact label={L['bot.instructions']}>
          <Long text={c.bot.instructions} none="None" />
        </Fact>
        <Fact label={L['bot.companyInfo']}>
          <Long text={c.bot.companyInfo} none="None" />
        </Fact>
        <Fact label={L['bot.faqs']}>
          {c.bot.faqs.length === 0 ? (
            'None'
          ) : (
            <ol>
              {c.bot.faqs.map((faq, i) => (
                <li key={i}>
                  <strong>{faq.question}</strong> <Long text={faq.answer} none="(no answer)" />
                </li>
              ))}
            </ol>
          )}
        </Fact>
        <Fact label={L['bot.resources']}>
          {c.bot.resources.length === 0 ? (
            'None'
          ) : (
            <ol>
              {c.bot.resources.map((r, i) => (
                <li key={i}>
                  <Long text={r} none="" />
                </li>
              ))}
            </ol>
          )}
        </Fact>
        <Fact label={L['bot.goal']}>{c.bot.goal || 'None'}</Fact>
        <Fact label={L['bot.handoffMessage']}>
          <Long
            text={c.bot.handoffMessage}
            none="The account’s hand-off message, else the built-in one in the campaign’s language"
          />
        </Fact>
      </dl>
    </div>
  );
}
