import type { Browser, Page, Response } from 'playwright-core';
import { request, type TestGateway } from '../helpers/gateway';
import { dataUri, incoming, wav } from '../gateway/api-support';
import { openPage, screenshot, seriousViolations, signInAt, startConsole, stopConsole } from './browser';
import { consoleAccount, type ConsoleAccount } from './support';

/**
 * A voice note or a video a contact sent, kept by the gateway, plays in the Inbox's thread in a real browser, from
 * the gateway itself, with its download beside it; one the contact sent as an address elsewhere stays a link that
 * the console never loads.
 */
jest.setTimeout(60_000);

const SECONDS = 0.5;
const REMOTE_NOTE = 'https://files.example.com/voice-note.ogg';

let gw: TestGateway;
let browser: Browser;
let owner: ConsoleAccount;
let page: Page;
const requests: string[] = [];
const mediaAnswers: Response[] = [];

/** The start of an MP4 file: its `ftyp` box, which is what tells a video/mp4 by its bytes. */
function mp4(): Buffer {
  const box = Buffer.alloc(32);
  box.writeUInt32BE(32, 0);
  box.write('ftypisom', 4, 'latin1');
  box.writeUInt32BE(512, 12);
  box.write('isomiso2mp41', 16, 'latin1');
  return box;
}

beforeAll(async () => {
  [gw, browser] = await startConsole();
  owner = await consoleAccount(gw, { name: 'Voice Dental' });
  const write = (customData: Record<string, unknown>) =>
    request(gw, 'POST', '/v1/incoming_custom_channel_message', {
      apiKey: owner.apiKey,
      body: incoming({ fromId: 'visitor-vera', firstName: 'Vera', channel: 'whatsapp-bridge', ...customData }),
    });
  const first = await write({
    body: 'My question in a voice note',
    mediaUrl: dataUri('audio/wav', wav(SECONDS)),
    mediaContentType: 'audio/wav',
  });
  expect(first.status).toBe(200);
  expect(
    (await write({ body: 'And a video', mediaUrl: dataUri('video/mp4', mp4()), mediaContentType: 'video/mp4' })).status,
  ).toBe(200);
  expect((await write({ body: 'Another note', mediaUrl: REMOTE_NOTE, mediaContentType: 'audio/ogg' })).status).toBe(
    200,
  );
  const { conversationId } = (
    await request(gw, 'GET', `/v1/messages/${first.body.messageId}`, { apiKey: owner.apiKey })
  ).body;

  ({ page } = await openPage(browser, requests));
  page.on('response', (r) => void (new URL(r.url()).pathname.startsWith('/v1/media/') && mediaAnswers.push(r)));
  await signInAt(page, `${gw.url}/console/inbox?c=${conversationId}`, owner);
  await page.locator('.inbox-msg-body').filter({ hasText: 'Another note' }).waitFor();
});
afterAll(() => stopConsole(gw, browser));

const messageOf = (body: string) => page.locator('.inbox-msg').filter({ hasText: body });

test('a kept voice note plays in the thread: its player reads the file from the gateway, and the download is beside it', async () => {
  const note = messageOf('My question in a voice note');
  const audio = note.locator('.inbox-media audio');
  expect(await audio.getAttribute('aria-label')).toBe('Audio sent by the contact (audio/wav)');
  expect(await audio.getAttribute('controls')).not.toBeNull();
  const src = await audio.getAttribute('src');
  expect(src).toMatch(/^\/v1\/media\/med_[\w-]+$/);

  // The page's own event: the browser read the file's header, and with it the note's length.
  const loaded = await audio.evaluate(
    (el: HTMLAudioElement) =>
      new Promise<{ readyState: number; duration: number } | string>((resolve) => {
        const done = () => resolve({ readyState: el.readyState, duration: el.duration });
        if (el.readyState >= HTMLMediaElement.HAVE_METADATA) return done();
        el.addEventListener('loadedmetadata', done, { once: true });
        el.addEventListener('error', () => resolve(`media error ${el.error?.code}: ${el.error?.message}`), {
          once: true,
        });
      }),
  );
  expect(loaded).toEqual({ readyState: expect.any(Number), duration: expect.closeTo(SECONDS, 2) });
  expect((loaded as { readyState: number }).readyState).toBeGreaterThanOrEqual(1); // HAVE_METADATA
  // A player asks for the file in parts, and the gateway answers them.
  expect(mediaAnswers.filter((r) => new URL(r.url()).pathname === src).map((r) => r.status())).toContain(206);

  const download = note.locator('.inbox-media a[download]');
  expect(await download.textContent()).toBe('Download the attached file (audio/wav)');
  expect(await download.getAttribute('href')).toBe(src);
  // The file is named by the gateway's answer, not by the link.
  expect(await download.getAttribute('download')).toBe('');
});

test('a kept video has its player, labelled with who sent it and its type, and its download beside it', async () => {
  const clip = messageOf('And a video');
  const video = clip.locator('.inbox-media video');
  expect(await video.getAttribute('aria-label')).toBe('Video sent by the contact (video/mp4)');
  expect(await video.getAttribute('controls')).not.toBeNull();
  const src = await video.getAttribute('src');
  expect(src).toMatch(/^\/v1\/media\/med_[\w-]+$/);
  expect(await clip.locator('.inbox-media a[download]').getAttribute('href')).toBe(src);
});

test('a voice note sent as an address elsewhere stays a link, never loaded by the page', async () => {
  const note = messageOf('Another note');
  expect(await note.locator('audio, video').count()).toBe(0);
  expect(
    await note.getByRole('link', { name: 'Open the attached file (audio/ogg) on its site' }).getAttribute('href'),
  ).toBe(REMOTE_NOTE);
  expect(requests.filter((r) => !r.startsWith(gw.url))).toEqual([]);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'inbox-media');
});
