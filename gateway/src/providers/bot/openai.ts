/**
 * The AI bot on any OpenAI-compatible chat-completions server: OpenAI itself, or a self-hosted Ollama, vLLM or
 * LM Studio. Only what all of them accept is sent (model, messages, temperature, max_tokens): no tools, no
 * response_format, no streaming. One request per reply, no retries, no redirect: the engine retries later or falls
 * back to the offline FAQ bot, which a bot that waits on retries would only delay.
 *
 * The base URL is a tenant's: the request is held to the operator's target policy when it connects, and a failure
 * is told by its status or cause and a fixed reason, never by what the server wrote (it could be any service's page).
 */
import type { TargetPolicy } from '../../config.js';
import { guard } from '../../outbound/guard.js';
import { isTargetRefused } from '../../outbound/target-policy.js';
import { questionsOf } from '../../bot/questions.js';
import { analyzerFor } from '../../bot/text.js';
import type { BotContext, BotProvider } from '../../engine/ports/bot-provider.js';
import { BotUnavailableError, buildMessages, readReply } from './prompt.js';

export { BotUnavailableError };

export interface OpenAiSettings {
  /** The API's base, ending in /v1 for most servers: "https://api.openai.com/v1", "http://localhost:11434/v1". */
  baseUrl: string;
  model: string;
  /** Null for a server that needs none (a local Ollama). */
  apiKey: string | null;
  timeoutMs: number;
  targets: TargetPolicy;
}

/** Steady, on-topic answers: the bot repeats the business's facts, it does not write fiction. */
const TEMPERATURE = 0.3;
/** Room for about 3 sentences and a marker; a longer answer is not an SMS. */
const MAX_TOKENS = 300;
/** Room for each further question a burst asks (questions.ts), up to MAX_QUESTIONS_ANSWERED of them. */
const TOKENS_PER_QUESTION = 150;
const MAX_QUESTIONS_ANSWERED = 3;
/**
 * The most of an answer that is read: a completion of MAX_TOKENS is a few KB. A server that sends more (a tenant's
 * server can send anything) is given up, so that its body is never held in memory whole.
 */
export const MAX_ANSWER_BYTES = 1 << 20;

/** The answer's room: a burst asking several questions gets an answer to each. */
function maxTokensFor(context: BotContext): number {
  const asked = questionsOf(
    context.messages.length ? context.messages : [context.message],
    analyzerFor(context.campaign.language),
  ).length;
  return MAX_TOKENS + TOKENS_PER_QUESTION * (Math.min(Math.max(asked, 1), MAX_QUESTIONS_ANSWERED) - 1);
}

/** What a status means for the operator, in fixed words. */
const STATUS_REASONS: Record<number, string> = {
  401: 'check the API key and its access to the model',
  403: 'check the API key and its access to the model',
  404: 'check the base URL and the model name',
  429: 'the server is rate limiting or out of quota',
};

interface Completion {
  choices?: Array<{ finish_reason?: string; message?: { content?: unknown } }>;
}

export function createOpenAiBot(settings: OpenAiSettings): BotProvider {
  const where = origin(settings.baseUrl);
  const endpoint = `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`;

  return {
    name: 'openai',
    async reply(context) {
      // Loaded by the first reply rather than at start-up.
      const { got } = await import('got');
      const maxTokens = maxTokensFor(context);
      let response;
      try {
        const request = got.post(endpoint, {
          json: {
            model: settings.model,
            messages: buildMessages(context),
            temperature: TEMPERATURE,
            max_tokens: maxTokens,
          },
          headers: {
            accept: 'application/json',
            'user-agent': 'LeadChat-Bot/1',
            ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
          },
          // The whole exchange, so a server that sends its headers and then stalls is cut off too.
          timeout: { request: settings.timeoutMs },
          retry: { limit: 0 },
          throwHttpErrors: false,
          followRedirect: false,
          responseType: 'text',
          ...guard(settings.targets),
        });
        request.on('downloadProgress', ({ transferred, total }) => {
          if (transferred > MAX_ANSWER_BYTES || (total ?? 0) > MAX_ANSWER_BYTES) request.cancel();
        });
        response = await request;
      } catch (error) {
        throw new BotUnavailableError(`${where}: ${failure(error, settings.timeoutMs)}`);
      }
      const status = response.statusCode;
      if (status < 200 || status > 299) {
        throw new BotUnavailableError(
          `${where}: answered ${status}${STATUS_REASONS[status] ? `: ${STATUS_REASONS[status]}` : ''}`,
        );
      }
      let completion: unknown;
      try {
        completion = JSON.parse(response.body);
      } catch {
        throw new BotUnavailableError(`${where}: the answer is not JSON`);
      }
      return readReply(contentOf(completion, where, maxTokens));
    },
  };
}

/** The text of the first choice, or why there is none. */
function contentOf(completion: unknown, where: string, maxTokens: number): string {
  const choice =
    typeof completion === 'object' && completion !== null ? (completion as Completion).choices?.[0] : undefined;
  if (!choice) throw new BotUnavailableError(`${where}: the answer holds no completion choice`);
  // A reply cut off mid-sentence is worse for a contact than the fallback's answer.
  if (choice.finish_reason === 'length')
    throw new BotUnavailableError(`${where}: the answer was cut off at ${maxTokens} tokens`);
  const content = choice.message?.content;
  if (typeof content !== 'string') throw new BotUnavailableError(`${where}: the answer holds no message text`);
  return content;
}

/** Why no answer came, in words an operator can act on: the policy's reason, a timeout, or the system's error code. */
function failure(error: unknown, timeoutMs: number): string {
  if (isTargetRefused(error)) return `refused by the gateway's target policy (${(error as Error).message})`;
  const { code } = (error ?? {}) as { code?: unknown };
  if (code === 'ETIMEDOUT') return `timed out after ${timeoutMs} ms`;
  if (code === 'ERR_CANCELED') return `the answer is larger than ${MAX_ANSWER_BYTES} bytes`;
  return `could not connect (${typeof code === 'string' ? code : 'no answer'})`;
}

/** Errors name the server by its origin only: a base URL may carry a token in its path. */
function origin(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return 'the bot endpoint';
  }
}
