import { useState } from 'preact/hooks';
import type { BotSettings, Campaign, PageOf } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Field, FormStatus, Panel } from '../../components/form.js';
import { Loading, useResource } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import { HandoffPanels } from './handoff.js';
import { Button } from '../../components/button.js';

/** The form's labels, by the fields of PUT /v1/settings/bot. */
const LABELS = {
  provider: 'Provider',
  openai: 'OpenAI-compatible endpoint',
  'openai.baseUrl': 'Base URL',
  'openai.model': 'Model',
  'openai.apiKey': 'API key',
  defaultCampaignId: 'Default campaign',
};

/** What happens now to a message no campaign answers, as saved: the default campaign's bot, or the team. */
function defaultCampaignNow(id: string | null, campaigns: Campaign[]): string {
  if (id)
    return `Now: the bot of “${campaigns.find((c) => c.id === id)?.name ?? id}” answers contacts that no campaign reached.`;
  return (
    'Now: none. A message from a contact that no campaign reached is never left unanswered: the contact is told a person will ' +
    'answer (the hand-off message below), and it goes to your team, the conversation handed off (“No campaign answered this contact”), ' +
    'listed as needing a reply and announced to every member; when hand-offs go to the agents in turn (below), the next agent gets it.'
  );
}

/**
 * Which bot answers contacts: the offline FAQ bot, or an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM,
 * LM Studio) with the FAQ bot standing in when it fails; and the campaign whose bot answers contacts no campaign
 * reached yet. The saved API key is never sent back whole: leaving its field empty keeps it. And who of the team
 * gets the conversations the bot hands over, and what the contact is told then.
 */
export function BotPage() {
  const bot = useResource<BotSettings>('/v1/settings/bot');
  const campaigns = useResource<PageOf<Campaign>>('/v1/campaigns?limit=100');
  const saving = useAction(LABELS);
  const [provider, setProvider] = useState<BotSettings['provider'] | undefined>(undefined);
  if (!bot.data)
    return (
      <>
        <PageTitle>Bot provider</PageTitle>
        <Loading error={bot.error} />
      </>
    );

  const saved = bot.data;
  const chosen = provider ?? saved.provider;
  const save = (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const apiKey = text('bot-api-key');
    const change: Record<string, unknown> = {
      provider: chosen,
      defaultCampaignId: text('bot-default-campaign') || null,
    };
    // Choosing the FAQ bot keeps the endpoint saved, so switching back needs no retyping.
    if (chosen === 'openai') {
      change.openai = {
        baseUrl: text('bot-base-url'),
        model: text('bot-model'),
        ...(form.get('bot-remove-key') ? { apiKey: null } : apiKey ? { apiKey } : {}),
      };
    }
    void saving.run(
      () => call<BotSettings>('PUT', '/v1/settings/bot', change),
      'Bot settings saved.',
      (data) => {
        bot.setData(data);
        setProvider(undefined);
      },
    );
  };
  const openai = saved.openai;
  // Fields start from what the API holds, and again after each save.
  const version = JSON.stringify(saved);
  return (
    <>
      <PageTitle>Bot provider</PageTitle>
      <Panel title="Who answers contacts" id="bot-heading">
        <p class="current">
          {saved.provider === 'openai' && openai ? (
            <>
              Now answering: the model <span class="value">{openai.model}</span> at{' '}
              <span class="value">{openai.baseUrl}</span>, the FAQ bot standing in when it fails.
            </>
          ) : (
            'Now answering: the FAQ bot, from each campaign’s FAQs and company information, offline.'
          )}
        </p>
        <form onSubmit={save} key={version} noValidate>
          <fieldset>
            <legend>Provider</legend>
            <label class="choice">
              <input
                type="radio"
                name="bot-provider"
                value="faq"
                checked={chosen === 'faq'}
                onChange={() => setProvider('faq')}
              />
              FAQ bot (built in, no external service)
            </label>
            <label class="choice">
              <input
                type="radio"
                name="bot-provider"
                value="openai"
                checked={chosen === 'openai'}
                onChange={() => setProvider('openai')}
              />
              OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio)
            </label>
          </fieldset>
          {chosen === 'openai' && (
            <fieldset>
              <legend>OpenAI-compatible endpoint</legend>
              <Field
                id="bot-base-url"
                label="Base URL"
                type="url"
                required
                defaultValue={openai?.baseUrl ?? ''}
                placeholder="https://api.openai.com/v1"
                hint="The address the chat completions API is under, such as http://localhost:11434/v1 for Ollama."
              />
              <Field
                id="bot-model"
                label="Model"
                required
                defaultValue={openai?.model ?? ''}
                placeholder="gpt-4o-mini"
              />
              <Field
                id="bot-api-key"
                label="API key"
                type="password"
                autocomplete="off"
                hint={
                  openai?.apiKey
                    ? `A key ending ${openai.apiKey.replace(/^•+/, '')} is saved. Leave this empty to keep it with this base URL; a new base URL needs its key again.`
                    : 'None saved. A local Ollama needs none.'
                }
              />
              {openai?.apiKey && (
                <label class="choice">
                  <input type="checkbox" name="bot-remove-key" value="1" /> Remove the saved key
                </label>
              )}
            </fieldset>
          )}
          <div class="field">
            <label for="bot-default-campaign">Default campaign</label>
            <p class="hint" id="bot-default-campaign-hint">
              Its bot (instructions and FAQs) answers the contacts that no campaign reached: those who write first, on a
              channel or from a list no campaign of theirs answers. Without one, their messages go to your team.
            </p>
            <select
              id="bot-default-campaign"
              name="bot-default-campaign"
              aria-describedby="bot-default-campaign-hint bot-default-campaign-now"
            >
              <option value="" selected={!saved.defaultCampaignId}>
                None
              </option>
              {(campaigns.data?.data ?? []).map((c) => (
                <option key={c.id} value={c.id} selected={c.id === saved.defaultCampaignId}>
                  {c.name}
                </option>
              ))}
            </select>
            <p class="hint" id="bot-default-campaign-now">
              {defaultCampaignNow(saved.defaultCampaignId, campaigns.data?.data ?? [])}
            </p>
          </div>
          <Button type="submit" class="primary" unavailable={saving.busy}>
            Save
          </Button>
        </form>
        <FormStatus error={saving.error} done={saving.done} />
      </Panel>
      <HandoffPanels />
    </>
  );
}
