import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type OpenAiModule = typeof import('../../gateway/src/providers/bot/openai.js', {
  with: { 'resolution-mode': 'import' }
});
type PromptModule = typeof import('../../gateway/src/providers/bot/prompt.js', {
  with: { 'resolution-mode': 'import' }
});
type BotContext = import('../../gateway/src/engine/ports/bot-provider.js', {
  with: { 'resolution-mode': 'import' }
}).BotContext;

const dist = path.resolve(__dirname, '../../gateway/dist/providers/bot');

let openai: OpenAiModule;
let prompt: PromptModule;
beforeAll(async () => {
  openai = (await gatewayModule(path.join(dist, 'openai.js'))) as OpenAiModule;
  prompt = (await gatewayModule(path.join(dist, 'prompt.js'))) as PromptModule;
});

const KEY = 'sk-test-4f9a2c71e0b3d8';

const context = (over: Partial<BotContext> = {}): BotContext => ({
  campaign: {
    name: 'Bright Smile Dental',
    language: 'es-MX',
    instructions: 'Offer the free first consultation to every new patient.',
    companyInfo: 'Family dental clinic at 12 Oak Street, open Monday to Friday.',
    goal: 'Book a first consultation.',
  },
  contact: { firstName: 'Lucía', lastName: 'Gómez' },
  history: [
    { from: 'bot', body: 'Hola Lucía, ¿quieres reservar tu consulta gratuita?' },
    { from: 'contact', body: '¿Cuánto cuesta un blanqueamiento?' },
    { from: 'team', body: 'Hola, soy Ana de la clínica: te lo confirmo enseguida.' },
  ],
  message: '¿Y tienen cita el martes?',
  messages: ['¿Y tienen cita el martes?'],
  clarifying: null,
  knowledge: {
    faqs: [{ question: 'Do you offer teeth whitening?', answer: 'Yes, from $250.' }],
    resources: ['Wheelchair access by the ramp at the side door.'],
  },
  ...over,
});

// ---- the stand-in endpoint -------------------------------------------------------------------------------------

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: { model: string; messages: Array<{ role: string; content: string }>; [field: string]: unknown };
}
type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

let server: http.Server;
let baseUrl: string;
let requests: Recorded[];
let handler: Handler;

const completion = (content: string | null, finishReason = 'stop') => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'test-model',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});
const json =
  (status: number, body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
const answer = (content: string | null, finishReason?: string) => json(200, completion(content, finishReason));

beforeEach(async () => {
  requests = [];
  handler = answer('Hola Lucía, sí tenemos cita el martes.');
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      requests.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Recorded['body'],
      });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const bot = (over: Partial<Parameters<OpenAiModule['createOpenAiBot']>[0]> = {}) =>
  openai.createOpenAiBot({
    baseUrl,
    model: 'test-model',
    apiKey: KEY,
    timeoutMs: 2000,
    targets: { kind: 'any' },
    ...over,
  });

/** The BotUnavailableError that `reply` rejects with; fails the test when it resolves or throws anything else. */
async function failureOf(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(openai.BotUnavailableError);
  return error as Error;
}

// ---- the request -------------------------------------------------------------------------------------------------

describe('the request', () => {
  test('one POST to /chat/completions with the model, the settings, the key and the conversation in order', async () => {
    const provider = bot();
    expect(provider.name).toBe('openai');
    await provider.reply(context());

    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers['content-type']).toMatch(/^application\/json/);
    const { model, messages, temperature, max_tokens, ...rest } = request!.body;
    expect({ model, temperature, max_tokens }).toEqual({ model: 'test-model', temperature: 0.3, max_tokens: 300 });
    // Nothing that only some compatible servers understand.
    expect(Object.keys(rest)).toEqual([]);

    expect(messages.map((m) => m.role)).toEqual(['system', 'assistant', 'user', 'assistant', 'user']);
    expect(messages.slice(1).map((m) => m.content)).toEqual([
      'Hola Lucía, ¿quieres reservar tu consulta gratuita?',
      '¿Cuánto cuesta un blanqueamiento?',
      '(team member) Hola, soy Ana de la clínica: te lo confirmo enseguida.',
      '¿Y tienen cita el martes?',
    ]);
  });

  test('the system prompt carries the business, its knowledge, the language, the contact and the markers', async () => {
    await bot().reply(context());
    const system = requests[0]!.body.messages[0]!.content;
    for (const part of [
      'Bright Smile Dental',
      'Offer the free first consultation to every new patient.',
      'Family dental clinic at 12 Oak Street, open Monday to Friday.',
      'Book a first consultation.',
      'Q: Do you offer teeth whitening?\nA: Yes, from $250.',
      '- Wheelchair access by the ramp at the side door.',
      'Mexican Spanish (es-MX)',
      'Lucía',
      '[HANDOFF]',
      '[GOAL_REACHED]',
      'Never invent prices',
    ]) {
      expect(system).toContain(part);
    }
    expect(system).not.toContain('Gómez');
    expect(system).not.toMatch(/^#/m);
  });

  test('no key: no authorization goes out, never the OPENAI_API_KEY of the environment', async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-from-the-environment';
    try {
      await bot({ apiKey: null }).reply(context());
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
    expect(requests[0]!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(requests[0])).not.toContain('sk-from-the-environment');
  });
});

// ---- the answer ------------------------------------------------------------------------------------------------

describe('reading the answer', () => {
  test.each([
    [
      'a plain answer',
      'Sí, el martes a las 10:00 está libre.',
      { kind: 'reply', body: 'Sí, el martes a las 10:00 está libre.', goalReached: false },
    ],
    [
      'a hand-off',
      'Una colega te escribirá pronto. [HANDOFF]',
      { kind: 'handoff', reason: 'bot_handoff', body: 'Una colega te escribirá pronto.' },
    ],
    [
      'the goal',
      '¡Perfecto, te esperamos el martes!\n[GOAL_REACHED]',
      { kind: 'reply', body: '¡Perfecto, te esperamos el martes!', goalReached: true },
    ],
    [
      'markers in odd case and spacing',
      'Te llamamos hoy.\n\n  [ handoff ]  \n',
      { kind: 'handoff', reason: 'bot_handoff', body: 'Te llamamos hoy.' },
    ],
    ['a goal marker in lower case', '¡Listo!   [goal_reached]', { kind: 'reply', body: '¡Listo!', goalReached: true }],
    ['a hand-off marker alone', '[HANDOFF]', { kind: 'handoff', reason: 'bot_handoff', body: null }],
  ])('%s', async (_name, content, expected) => {
    handler = answer(content);
    expect(await bot().reply(context())).toEqual(expected);
  });

  test('an empty or blank answer is a failure, so the engine falls back', async () => {
    for (const content of ['', '  \n ']) {
      handler = answer(content);
      expect((await failureOf(bot().reply(context()))).message).toMatch(/empty/);
    }
  });

  test.each([
    ['content null', () => answer(null), /no message text/],
    ['no choices', () => json(200, { ...completion('x'), choices: [] }), /no completion choice/],
    [
      'an answer cut off at max_tokens',
      () => answer('Nuestro horario es de lunes a', 'length'),
      /cut off at 300 tokens/,
    ],
    [
      'a 200 with an HTML page',
      () => (_req: http.IncomingMessage, res: http.ServerResponse) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>'),
      /not JSON/,
    ],
  ])('an unusable answer (%s) is a failure', async (_name, make, message) => {
    handler = make();
    expect((await failureOf(bot().reply(context()))).message).toMatch(message);
  });
});

// ---- failures ------------------------------------------------------------------------------------------------------

describe('a failing endpoint', () => {
  test('500: one request only (no retries), the status in the message and nothing the server wrote', async () => {
    handler = json(500, { error: { message: 'model is loading', type: 'server_error' } });
    const error = await failureOf(bot().reply(context()));
    expect(error.message).toBe(`${new URL(baseUrl).origin}: answered 500`);
    // The client would retry a 500 twice by default, before rejecting.
    expect(requests).toHaveLength(1);
  });

  test('401: the message says so and holds no part of the key, even when the server quotes it', async () => {
    handler = json(401, {
      error: { message: `Incorrect API key provided: ${KEY}. Its tail is ${KEY.slice(-6)}.`, code: 'invalid_api_key' },
    });
    const error = await failureOf(bot().reply(context()));
    expect(error.message).toMatch(/answered 401/);
    expect(error.message).not.toContain(KEY.slice(-6));
    expect(error.message).not.toContain('sk-test');
    expect(JSON.stringify(error)).not.toContain(KEY.slice(-6));
    expect(String(error.stack)).not.toContain(KEY.slice(-6));
    expect(error.cause).toBeUndefined();
  });

  test("another status: a fixed reason, never the server's text (which may quote the key)", async () => {
    handler = json(404, { error: { message: `The model 'x' does not exist (key ${KEY})` } });
    const error = await failureOf(bot().reply(context()));
    expect(error.message).toBe(`${new URL(baseUrl).origin}: answered 404: check the base URL and the model name`);
  });

  test('a redirect is not followed: the server named is the only one asked', async () => {
    handler = (_req, res) => void res.writeHead(307, { location: 'http://127.0.0.1:1/v1/chat/completions' }).end();
    expect((await failureOf(bot().reply(context()))).message).toMatch(/answered 307$/);
    expect(requests).toHaveLength(1);
  });

  test('an address the target policy refuses is never connected to', async () => {
    const error = await failureOf(bot({ targets: { kind: 'public' } }).reply(context()));
    expect(error.message).toMatch(/refused by the gateway's target policy \(host 127\.0\.0\.1 is not a public address/);
    expect(requests).toHaveLength(0);
  });

  test('connection refused', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failureOf(bot({ baseUrl: `http://127.0.0.1:${port}/v1` }).reply(context()));
    expect(error.message).toBe(`http://127.0.0.1:${port}: could not connect (ECONNREFUSED)`);
  });

  test('an answer larger than any completion is given up as soon as its size shows, before it is all read', async () => {
    // A valid completion, padded to 4 MB.
    const padded = `${JSON.stringify(completion('Sí, el martes.'))}${' '.repeat(4 << 20)}`;
    handler = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(padded);
    expect((await failureOf(bot().reply(context()))).message).toBe(
      `${new URL(baseUrl).origin}: the answer is larger than ${openai.MAX_ANSWER_BYTES} bytes`,
    );
    // Without a length given, at the byte past the bound: a server's endless body is not held until the timeout.
    let sent = 0;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const more = () => {
        sent += 64 * 1024;
        if (!res.destroyed) res.write(' '.repeat(64 * 1024), more);
      };
      more();
    };
    const started = Date.now();
    const error = await failureOf(bot({ timeoutMs: 10_000 }).reply(context()));
    expect(error.message).toMatch(/the answer is larger than/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sent).toBeLessThan(16 << 20);
  });

  test('malformed JSON', async () => {
    handler = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [');
    expect((await failureOf(bot().reply(context()))).message).toMatch(/the answer is not JSON/);
  });

  test('a server that never answers is cut off after timeoutMs', async () => {
    handler = () => undefined;
    const started = Date.now();
    const error = await failureOf(bot({ timeoutMs: 300 }).reply(context()));
    const elapsed = Date.now() - started;
    expect(error.message).toMatch(/timed out after 300 ms/);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(300 + 400);
  });

  test('a server that sends its headers and then stalls the body is cut off after timeoutMs too', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id": "chatcmpl-1", ');
    };
    const started = Date.now();
    const error = await failureOf(bot({ timeoutMs: 300 }).reply(context()));
    const elapsed = Date.now() - started;
    expect(error.message).toMatch(/timed out after 300 ms/);
    expect(elapsed).toBeLessThan(300 + 400);
  });
});

// ---- buildMessages and readReply -----------------------------------------------------------------------------------

describe('buildMessages', () => {
  test('no history: the system prompt and the message', () => {
    const messages = prompt.buildMessages(context({ history: [] }));
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[1]!.content).toBe('¿Y tienen cita el martes?');
  });

  test('consecutive turns of one role are joined: strict chat templates want user and assistant to alternate', () => {
    const messages = prompt.buildMessages(
      context({
        history: [
          { from: 'contact', body: 'hola' },
          { from: 'contact', body: '¿están abiertos?' },
          { from: 'bot', body: 'Sí, hasta las 18:00.' },
          { from: 'team', body: 'Y el sábado también.' },
          { from: 'contact', body: 'gracias' },
        ],
        message: '¿y el domingo?',
      }),
    );
    expect(messages.slice(1)).toEqual([
      { role: 'user', content: 'hola\n\n¿están abiertos?' },
      { role: 'assistant', content: 'Sí, hasta las 18:00.\n\n(team member) Y el sábado también.' },
      { role: 'user', content: 'gracias\n\n¿y el domingo?' },
    ]);
  });

  test('long bodies are cut to MAX_BODY_CHARS, and an emoji is never split in half', () => {
    const long = 'a'.repeat(prompt.MAX_BODY_CHARS - 2) + '😀' + 'b'.repeat(5000);
    const messages = prompt.buildMessages(context({ history: [{ from: 'bot', body: long }], message: long }));
    for (const m of messages.slice(1)) {
      expect(m.content.length).toBeLessThanOrEqual(prompt.MAX_BODY_CHARS);
      expect(m.content.endsWith('a…')).toBe(true);
      // A lone surrogate would come back from UTF-8 as U+FFFD.
      expect(Buffer.from(m.content, 'utf8').toString('utf8')).toBe(m.content);
    }
  });

  test('the history keeps the newest messages: at most 20 and MAX_HISTORY_CHARS in all', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({
      from: i % 2 ? ('bot' as const) : ('contact' as const),
      body: `message ${i}`,
    }));
    const sent = prompt.buildMessages(context({ history: many })).slice(1);
    expect(sent).toHaveLength(21);
    expect(sent[0]!.content).toBe('message 10');
    expect(sent[19]!.content).toBe('message 29');

    const big = Array.from({ length: 10 }, (_, i) => ({
      from: i % 2 ? ('bot' as const) : ('contact' as const),
      body: `${i}`.repeat(1500),
    }));
    const kept = prompt.buildMessages(context({ history: big })).slice(1, -1);
    const size = kept.reduce((sum, m) => sum + m.content.length, 0);
    expect(size).toBeLessThanOrEqual(prompt.MAX_HISTORY_CHARS);
    expect(kept.at(-1)!.content).toBe('9'.repeat(1500));
    expect(kept).toHaveLength(Math.floor(prompt.MAX_HISTORY_CHARS / 1500));
  });

  test('the knowledge is sent best first up to MAX_KNOWLEDGE_CHARS', () => {
    const faqs = Array.from({ length: 20 }, (_, i) => ({
      question: `Question ${i}?`,
      answer: `Answer ${i} `.repeat(100),
    }));
    const system = prompt.buildMessages(context({ knowledge: { faqs, resources: ['Resource kept last'] } }))[0]!
      .content;
    expect(system).toContain('Q: Question 0?');
    expect(system).not.toContain('Q: Question 19?');
    const knowledge = system.slice(system.indexOf('FAQs:'));
    expect(knowledge.length).toBeLessThanOrEqual(prompt.MAX_KNOWLEDGE_CHARS + 200);
  });

  test("the channel's longest message is the reply's bound, when the engine gives it", () => {
    const system = (over: Partial<BotContext>) => prompt.buildMessages(context(over))[0]!.content;
    expect(system({ replyLimit: 500 })).toContain('Your whole reply must stay under 500 characters');
    expect(system({})).not.toContain('Your whole reply must');
    expect(system({})).not.toContain('\n\n- ');
  });

  test('no knowledge: the model is told to hand over questions of fact', () => {
    const system = prompt.buildMessages(context({ knowledge: { faqs: [], resources: [] } }))[0]!.content;
    expect(system).toMatch(/No FAQs or resources match this message: hand over/);
  });

  test('no first name, no goal, no instructions: nothing made up for them', () => {
    const base = context();
    const system = prompt.buildMessages(
      context({
        contact: { firstName: null, lastName: null },
        campaign: { ...base.campaign, goal: '', instructions: '  ' },
      }),
    )[0]!.content;
    expect(system).toMatch(/name is unknown/);
    expect(system).not.toContain('[GOAL_REACHED]');
    expect(system).not.toContain("The business's instructions");
    expect(system).toContain('[HANDOFF]');
  });

  test('a language code Intl does not know is passed as it is', () => {
    const base = context();
    const system = prompt.buildMessages(context({ campaign: { ...base.campaign, language: 'not a tag!' } }))[0]!
      .content;
    expect(system).toContain('Language: write in not a tag! unless');
  });
});

describe('readReply', () => {
  test('the markers are the documented ones', () => {
    expect(prompt.HANDOFF_MARKER).toBe('[HANDOFF]');
    expect(prompt.GOAL_MARKER).toBe('[GOAL_REACHED]');
  });

  test.each([
    ['Assistant: Claro, el martes.', { kind: 'reply', body: 'Claro, el martes.', goalReached: false }],
    [
      '<think>The contact wants Tuesday.</think>\nClaro, el martes.',
      { kind: 'reply', body: 'Claro, el martes.', goalReached: false },
    ],
    [
      'Reservado. [GOAL_REACHED] Una colega confirmará. [HANDOFF]',
      { kind: 'handoff', reason: 'bot_handoff', body: 'Reservado. Una colega confirmará.' },
    ],
    ['[Hand Off]\n', { kind: 'handoff', reason: 'bot_handoff', body: null }],
    ['Hecho [ GOAL REACHED ]', { kind: 'reply', body: 'Hecho', goalReached: true }],
    ['Line one\nLine two', { kind: 'reply', body: 'Line one\nLine two', goalReached: false }],
  ])('%j', (content, expected) => {
    expect(prompt.readReply(content)).toEqual(expected);
  });

  test('a marker inside the thinking does not count', () => {
    expect(prompt.readReply('<think>maybe [HANDOFF]?</think>Sí.')).toEqual({
      kind: 'reply',
      body: 'Sí.',
      goalReached: false,
    });
  });

  test.each(['', '   ', '[GOAL_REACHED]', 'Assistant:', '<think>hm</think>'])(
    '%j throws BotUnavailableError',
    (content) => {
      expect(() => prompt.readReply(content)).toThrow(openai.BotUnavailableError);
    },
  );
});
