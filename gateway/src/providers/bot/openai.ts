/**
 * The AI bot on any OpenAI-compatible chat-completions server: OpenAI itself, or a self-hosted Ollama, vLLM or
 * LM Studio. Only what all of them accept is sent (model, messages, temperature, max_tokens): no tools, no
 * response_format, no streaming. One request per reply, no retries: the engine retries later or falls back to the
 * offline FAQ bot, which a bot that waits on retries would only delay.
 */
import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { BotProvider } from './bot-provider.js';
import { BotUnavailableError, buildMessages, readReply } from './prompt.js';

export { BotUnavailableError };

export interface OpenAiSettings {
  /** The API's base, ending in /v1 for most servers: "https://api.openai.com/v1", "http://localhost:11434/v1". */
  baseUrl: string;
  model: string;
  /** Null for a server that needs none (a local Ollama). */
  apiKey: string | null;
  timeoutMs: number;
}

/** Steady, on-topic answers: the bot repeats the business's facts, it does not write fiction. */
const TEMPERATURE = 0.3;
/** Room for about 3 sentences and a marker; a longer answer is not an SMS. */
const MAX_TOKENS = 300;
/**
 * Sent as the key when there is none: the client refuses to start without a key, and leaving it unset would make the
 * client send OPENAI_API_KEY from the environment, a real OpenAI key, to whatever server baseUrl names. Servers
 * without authentication ignore the header.
 */
const NO_KEY = 'none';

export function createOpenAiBot(settings: OpenAiSettings): BotProvider {
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey ?? NO_KEY,
    // Stated so that OPENAI_ORG_ID / OPENAI_PROJECT_ID of the environment are not sent to another provider.
    organization: null,
    project: null,
    timeout: settings.timeoutMs,
    maxRetries: 0,
    // With OPENAI_LOG=debug the client would log every request, contacts' messages included; the gateway logs its own way.
    logLevel: 'off',
  });
  const where = origin(settings.baseUrl);

  return {
    name: 'openai',
    async reply(context) {
      // The client's timeout covers only the wait for the response headers; this signal also cuts off a body that stalls.
      const signal = AbortSignal.timeout(settings.timeoutMs);
      let completion: unknown;
      try {
        completion = await client.chat.completions.create(
          { model: settings.model, messages: buildMessages(context), temperature: TEMPERATURE, max_tokens: MAX_TOKENS },
          { signal },
        );
      } catch (error) {
        throw new BotUnavailableError(`${where}: ${failure(error, signal, settings)}`);
      }
      return readReply(contentOf(completion, where));
    },
  };
}

/** The text of the first choice, or why there is none. */
function contentOf(completion: unknown, where: string): string {
  // A server answering 200 with HTML or plain text reaches here as a string, not a completion.
  const choice = (completion as Partial<ChatCompletion> | null)?.choices?.[0];
  if (typeof completion !== 'object' || !choice) throw new BotUnavailableError(`${where}: the answer holds no completion choice`);
  // A reply cut off mid-sentence is worse for a contact than the fallback's answer.
  if (choice.finish_reason === 'length') throw new BotUnavailableError(`${where}: the answer was cut off at ${MAX_TOKENS} tokens`);
  const content = choice.message?.content;
  if (typeof content !== 'string') throw new BotUnavailableError(`${where}: the answer holds no message text`);
  return content;
}

/** Why the request failed, in words an operator can act on; never the key. */
function failure(error: unknown, signal: AbortSignal, settings: OpenAiSettings): string {
  if (signal.aborted || error instanceof OpenAI.APIConnectionTimeoutError) return `timed out after ${settings.timeoutMs} ms`;
  if (error instanceof OpenAI.APIConnectionError) return `could not connect (${connectionCause(error)})`;
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    // OpenAI's own 401 quotes part of the wrong key; an authentication failure's text is not repeated at all.
    if (error.status === 401 || error.status === 403) return `answered ${error.status}: check the API key and its access to the model`;
    const detail = error.message.replace(/^\d{3}\s*/, '');
    return `answered ${error.status}${detail ? `: ${redact(detail, settings.apiKey).slice(0, 300)}` : ''}`;
  }
  // Errors of fetch and of its body parsing come from Node's own realm, where `instanceof` against ours can fail.
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name === 'SyntaxError') return 'answered malformed JSON';
  return `request failed: ${redact(String(message ?? error), settings.apiKey).slice(0, 300)}`;
}

/** The system error code under fetch's "fetch failed" (ECONNREFUSED, ENOTFOUND …), or the client's message. */
function connectionCause(error: Error): string {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 5 && typeof cause === 'object' && cause !== null; depth++) {
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return error.message;
}

function redact(text: string, key: string | null): string {
  return key ? text.split(key).join('[key]') : text;
}

/** Errors name the server by its origin only: a base URL may carry credentials in its user part or path. */
function origin(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return 'the bot endpoint';
  }
}
