import { existsSync, mkdirSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { BACKEND } from '../helpers/gateway';
import { logLines } from '../helpers/log-lines';
import {
  api,
  createAccount,
  dataUri,
  expectPlainError,
  getBytes,
  incoming,
  png,
  request,
  unique,
  useGateway,
  wav,
  type TestAccount,
  type TestGateway,
} from './api-support';

/** Spec §2.4 and §4.5: receiving a message from a custom channel. */
const ctx = useGateway();
let account: TestAccount;
beforeAll(async () => {
  account = await createAccount(ctx.gw);
});

const receive = (body: unknown, gw: TestGateway = ctx.gw, who: TestAccount = account) =>
  api(gw, who, 'POST', 'incoming_custom_channel_message', { body });
const message = async (id: string, who: TestAccount = account) => {
  const res = await api(ctx.gw, who, 'GET', `messages/${id}`);
  expect(res.status).toBe(200);
  return res.body;
};
/** What the contact sent and was stored: the gateway's hand-off notice to them (no campaign answers here) aside. */
const messagesOf = async (contactId: string) => {
  const res = await api(ctx.gw, account, 'GET', `contacts/${contactId}/messages?limit=200`);
  expect(res.status).toBe(200);
  return (res.body.data as any[]).filter((m) => m.direction === 'incoming');
};

describe('validation (§2.4) → 400 {error:"<message>"}', () => {
  const valid = () => incoming().customData;
  const without = (field: string) => {
    const d: Record<string, unknown> = valid();
    delete d[field];
    return { customData: d };
  };

  test.each<[string, unknown, RegExp?]>([
    ['no customData', { messageType: 'text' }, /customData/],
    ['customData a string', { customData: 'hello' }, /customData/],
    ['customData an array', { customData: [valid()] }, /customData/],
    ['customData null', { customData: null }, /customData/],
    ['neither messageSid nor id', without('messageSid'), /messageSid/],
    ['empty messageSid', { customData: { ...valid(), messageSid: '' } }, /messageSid/],
    ['numeric messageSid', { customData: { ...valid(), messageSid: 12345 } }, /messageSid/],
    ['no fromId', without('fromId'), /fromId/],
    ['empty fromId', { customData: { ...valid(), fromId: '' } }, /fromId/],
    ['numeric fromId', { customData: { ...valid(), fromId: 42 } }, /fromId/],
    ['no toId', without('toId'), /toId/],
    ['empty toId', { customData: { ...valid(), toId: '  ' } }, /toId/],
    ['no body', without('body'), /body/],
    ['empty body', { customData: { ...valid(), body: '' } }, /body/],
    ['whitespace-only body', { customData: { ...valid(), body: ' \n\t  ' } }, /body/],
    [
      'a body of invisible characters alone (zero-width ones, a Braille blank, a Hangul filler)',
      { customData: { ...valid(), body: '\u200b \u2060\u200d\u2800\u3164\u180e\u00ad' } },
      /body/,
    ],
    ['numeric body', { customData: { ...valid(), body: 7 } }, /body/],
    [
      'mediaUrl without mediaContentType',
      { customData: { ...valid(), mediaUrl: 'https://cdn.example.com/a.jpg' } },
      /mediaContentType/,
    ],
    [
      'mediaUrl with null mediaContentType',
      { customData: { ...valid(), mediaUrl: 'https://cdn.example.com/a.jpg', mediaContentType: null } },
      /mediaContentType/,
    ],
    ['messageType image', { ...incoming(), messageType: 'image' }, /messageType/],
    ['messageType a number', { ...incoming(), messageType: 1 }, /messageType/],
    ['email not an email', { customData: { ...valid(), email: 'nope' } }, /email/],
    ['a JSON array', [valid()], undefined],
  ])('%s', async (_what, body, mentions) => {
    const res = await receive(body);
    expectPlainError(res, 400);
    if (mentions) expect(res.body.error).toMatch(mentions);
  });

  test('malformed JSON → 400 {error:"..."}', async () => {
    expectPlainError(await receive('{"customData": {"fromId": '), 400);
  });

  test('text that cannot be stored is refused naming its field and why: an emoji cut in two, a NUL', async () => {
    // A widget that keeps the first 12 UTF-16 units of "Hello there 😀" keeps half of the emoji.
    const cut = 'Hello there 😀'.slice(0, 13);
    const d = valid();
    const halved = await receive({ customData: { ...d, body: cut } });
    expectPlainError(halved, 400);
    expect(halved.body.error).toMatch(/^customData\.body: must be valid Unicode: .*surrogate pair.*emoji cut in two/);
    const nul = await receive({ customData: { ...d, firstName: 'Ana\u0000' } });
    expectPlainError(nul, 400);
    expect(nul.body.error).toBe('customData.firstName: must not contain NUL (\\u0000) characters');
    // Nothing of either was kept: the messageSid is the message's once it is sent whole.
    const whole = await receive({ customData: d });
    expect(whole.status).toBe(200);
    expect(await messagesOf((await message(whole.body.messageId)).contactId)).toHaveLength(1);
  });

  test('a rejected message stores nothing: its messageSid is accepted afterwards', async () => {
    const d = valid();
    expectPlainError(await receive({ customData: { ...d, body: '   ' } }), 400);
    const ok = await receive({ customData: d });
    expect(ok.status).toBe(200);
    const m = await message(ok.body.messageId);
    expect(await messagesOf(m.contactId)).toHaveLength(1);
  });

  test('id instead of messageSid is accepted', async () => {
    const { messageSid: _drop, ...d } = valid();
    const res = await receive({ customData: { ...d, id: unique('ext') } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, messageId: expect.any(String) });
  });

  test('the same id in two accounts, or equal to a contact id, is just a message id', async () => {
    const other = await createAccount(ctx.gw);
    const existing = (await api(ctx.gw, account, 'POST', 'contacts', { body: { email: `${unique('c')}@example.com` } }))
      .body;
    const shared = unique('ext');
    const base = { toId: 'biz', body: 'hello' };
    const mine = await receive({ customData: { ...base, id: shared, fromId: unique('u') } });
    const theirs = await receive({ customData: { ...base, id: shared, fromId: unique('u') } }, ctx.gw, other);
    const clash = await receive({ customData: { ...base, id: existing.id, fromId: unique('u') } });
    for (const r of [mine, theirs, clash]) expect(r.status).toBe(200);
    const contactIds = [
      (await message(mine.body.messageId)).contactId,
      (await message(clash.body.messageId)).contactId,
    ];
    expect(contactIds).not.toContain(shared);
    expect(contactIds).not.toContain(existing.id);
    expect((await api(ctx.gw, account, 'GET', `contacts/${existing.id}`)).body).toEqual(existing);
    expect((await api(ctx.gw, account, 'GET', `contacts/${contactIds[0]}`)).body).toEqual({
      id: contactIds[0],
      firstName: '',
      lastName: '',
      phone: '',
      email: '',
      fromId: expect.any(String),
      createdAt: expect.any(String),
    });
  });

  test('mediaUrl null (no attachment) needs no content type', async () => {
    const res = await receive({ customData: { ...valid(), mediaUrl: null, mediaContentType: null } });
    expect(res.status).toBe(200);
    expect((await message(res.body.messageId)).media).toBeNull();
  });
});

describe('methods other than POST', () => {
  test.each(['GET', 'PUT', 'DELETE', 'PATCH'])('%s → 405 with Allow and {error:"..."}', async (method) => {
    for (const who of [account, undefined]) {
      const res = await api(
        ctx.gw,
        who,
        method,
        'incoming_custom_channel_message',
        method === 'GET' || method === 'DELETE' ? {} : { body: incoming() },
      );
      expectPlainError(res, 405);
      expect(String(res.headers.allow)).toMatch(/\bPOST\b/);
      expect(String(res.headers.allow)).not.toMatch(/\bGET\b/);
    }
  });

  test('OPTIONS → 204 with Allow', async () => {
    const res = await request(ctx.gw, 'OPTIONS', '/v1/incoming_custom_channel_message');
    expect(res.status).toBe(204);
    expect(String(res.headers.allow)).toMatch(/\bPOST\b/);
  });
});

describe('storing a message', () => {
  test('200 {success,messageId}; defaults: status received, messageType text; fields stored', async () => {
    const campaign = (await api(ctx.gw, account, 'POST', 'campaigns', { body: { name: 'Spring' } })).body;
    const body = incoming({ channel: 'live-chat', campaignId: campaign.id, toId: 'shop-42' });
    const res = await receive(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, messageId: expect.any(String) });
    const m = await message(res.body.messageId);
    expect(m).toMatchObject({
      id: res.body.messageId,
      contactId: expect.any(String),
      direction: 'incoming',
      body: 'Hello there',
      status: 'received',
      error: null,
      messageType: 'text',
      messageSid: body.customData.messageSid,
      fromId: body.customData.fromId,
      toId: 'shop-42',
      channel: 'live-chat',
      campaignId: campaign.id,
      media: null,
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(m).not.toHaveProperty('accountId');
  });

  test('given status and messageType reaction are stored', async () => {
    const res = await receive(incoming({ status: 'read', body: '👍' }, { messageType: 'reaction' }));
    expect(res.status).toBe(200);
    expect(await message(res.body.messageId)).toMatchObject({ status: 'read', messageType: 'reaction', body: '👍' });
    const text = await receive(incoming({}, { messageType: 'text' }));
    expect((await message(text.body.messageId)).messageType).toBe('text');
  });

  test('contact is created from fromId with firstName/lastName/email, then reused and never duplicated', async () => {
    const fromId = unique('visitor');
    const first = await receive(
      incoming({ fromId, firstName: 'Hana', lastName: 'Ito', email: 'Hana@Example.com', body: 'first' }),
    );
    const m1 = await message(first.body.messageId);
    const contact = await api(ctx.gw, account, 'GET', `contacts/${m1.contactId}`);
    expect(contact.status).toBe(200);
    expect(contact.body).toMatchObject({
      id: m1.contactId,
      firstName: 'Hana',
      lastName: 'Ito',
      email: 'hana@example.com',
      fromId,
    });

    const second = await receive(
      incoming({ fromId, firstName: 'Other', lastName: 'Name', email: 'other@example.com', body: 'second' }),
    );
    const third = await receive(incoming({ fromId, body: 'third' }));
    expect((await message(second.body.messageId)).contactId).toBe(m1.contactId);
    expect((await message(third.body.messageId)).contactId).toBe(m1.contactId);
    // Details with a message are used when the contact is created, not afterwards.
    expect((await api(ctx.gw, account, 'GET', `contacts/${m1.contactId}`)).body).toEqual(contact.body);
    // Oldest first.
    expect((await messagesOf(m1.contactId)).map((m) => m.body)).toEqual(['first', 'second', 'third']);
  });

  test('another fromId is another contact', async () => {
    const a = await receive(incoming({ fromId: unique('a') }));
    const b = await receive(incoming({ fromId: unique('b') }));
    expect((await message(a.body.messageId)).contactId).not.toBe((await message(b.body.messageId)).contactId);
  });

  test('concurrent messages from a new fromId make one contact', async () => {
    const fromId = unique('burst');
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => receive(incoming({ fromId, body: `m${i}` }))),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
    const contactIds = new Set(
      await Promise.all(replies.map(async (r) => (await message(r.body.messageId)).contactId)),
    );
    expect(contactIds.size).toBe(1);
    expect(await messagesOf([...contactIds][0]!)).toHaveLength(10);
  });
});

/** The account's files on the embedded store. */
const mediaFiles = () => {
  const dir = path.join(ctx.gw.dataDir, 'media', account.id);
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe('duplicates (§6.3)', () => {
  test('a repeated messageSid → 200 with the original messageId; nothing changes', async () => {
    const body = incoming({ status: 'received' });
    const first = await receive(body);
    const m = await message(first.body.messageId);
    const before = await messagesOf(m.contactId);

    const again = await receive(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: true, messageId: first.body.messageId });
    const changed = await receive({
      customData: { ...body.customData, body: 'a different text', status: 'read', fromId: unique('x') },
    });
    expect(changed.body).toEqual({ success: true, messageId: first.body.messageId });

    expect(await messagesOf(m.contactId)).toEqual(before);
    expect(await message(first.body.messageId)).toEqual(m);
  });

  test('a repeated id (instead of messageSid) is a duplicate too', async () => {
    const d = { id: unique('ext'), fromId: unique('u'), toId: 'biz', body: 'once' };
    const first = await receive({ customData: d });
    const again = await receive({ customData: d });
    expect(again.body.messageId).toBe(first.body.messageId);
    expect(await messagesOf((await message(first.body.messageId)).contactId)).toHaveLength(1);
  });

  test('20 concurrent duplicates → one message, every reply carries its id', async () => {
    const body = incoming();
    const replies = await Promise.all(Array.from({ length: 20 }, () => receive(body)));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    const ids = new Set(replies.map((r) => r.body.messageId));
    expect(ids.size).toBe(1);
    const m = await message([...ids][0]!);
    expect(await messagesOf(m.contactId)).toHaveLength(1);
  });

  test('20 concurrent duplicates carrying an embedded file → one message, one readable file', async () => {
    const before = mediaFiles();
    const file = png(3, 3);
    const body = incoming({ mediaUrl: dataUri('image/png', file), mediaContentType: 'image/png' });
    const replies = await Promise.all(Array.from({ length: 20 }, () => receive(body)));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(replies.map((r) => r.body.messageId)).size).toBe(1);
    const m = await message(replies[0]!.body.messageId);
    expect(await messagesOf(m.contactId)).toHaveLength(1);
    const got = await getBytes(ctx.gw, account, m.media.url);
    expect(got.status).toBe(200);
    expect(got.bytes.equals(file)).toBe(true);
    // The copies saved by the requests that lost the race were removed again.
    if (BACKEND === 'lowdb') expect(mediaFiles().filter((f) => !before.includes(f))).toEqual([m.media.mediaId]);
  });

  test('a retry is answered with the original before its file is looked at, even a file that would now be refused', async () => {
    const body = incoming({ mediaUrl: dataUri('image/png', png()), mediaContentType: 'image/png' });
    const first = await receive(body);
    expect(first.status).toBe(200);
    const refused = { ...body.customData, mediaUrl: dataUri('image/jpeg', png()), mediaContentType: 'image/jpeg' };
    expectPlainError(await receive(incoming({ ...refused, messageSid: unique('sid') })), 400);
    const again = await receive({ customData: refused });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: true, messageId: first.body.messageId });
  });
});

describe('media', () => {
  test('an embedded base64 PNG is stored and readable back by its account', async () => {
    const file = png(4, 4);
    const res = await receive(incoming({ mediaUrl: dataUri('image/png', file), mediaContentType: 'image/png' }));
    expect(res.status).toBe(200);
    const m = await message(res.body.messageId);
    expect(m.media).toEqual({
      url: expect.stringMatching(/^\/v1\/media\/[\w-]+$/),
      contentType: 'image/png',
      mediaId: expect.any(String),
    });
    expect(m.media.url).not.toContain('base64');

    const got = await getBytes(ctx.gw, account, m.media.url);
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.bytes.equals(file)).toBe(true);
  });

  test('the media is not readable by another account, nor without a key', async () => {
    const res = await receive(incoming({ mediaUrl: dataUri('image/png', png()), mediaContentType: 'image/png' }));
    const m = await message(res.body.messageId);
    const other = await createAccount(ctx.gw);
    const stranger = await api(ctx.gw, other, 'GET', m.media.url);
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual({ error: { code: 'MEDIA_NOT_FOUND', message: expect.any(String) } });
    expect((await request(ctx.gw, 'GET', m.media.url)).status).toBe(401);
    expect((await api(ctx.gw, account, 'GET', 'media/med_unknown')).status).toBe(404);
  });

  test('a general type ("image") is accepted for a PNG and stored as image/png', async () => {
    const res = await receive(incoming({ mediaUrl: dataUri('image/png', png()), mediaContentType: 'image' }));
    expect(res.status).toBe(200);
    expect((await message(res.body.messageId)).media.contentType).toBe('image/png');
  });

  test('a textual file is checked as text and readable back', async () => {
    const text = Buffer.from('name,phone\nAna,+15550100199\n');
    const res = await receive(incoming({ mediaUrl: dataUri('text/csv', text), mediaContentType: 'text/csv' }));
    expect(res.status).toBe(200);
    const m = await message(res.body.messageId);
    const got = await getBytes(ctx.gw, account, m.media.url);
    expect(got.headers['content-type']).toMatch(/^text\/csv/);
    expect(got.bytes.equals(text)).toBe(true);
  });

  test.each([
    ['a photo', 'image/png', png(), 'png'],
    ['a contact card', 'text/vcard', Buffer.from('BEGIN:VCARD\nVERSION:3.0\nFN:Ana\nEND:VCARD\n'), 'vcf'],
    ['a spreadsheet', 'text/csv', Buffer.from('name,phone\nAna,+15550100199\n'), 'csv'],
    // Opened from the downloads folder, where no Content-Security-Policy holds, these would run: they open as text.
    ['a web page', 'text/html', Buffer.from('<html><script>alert(1)</script></html>'), 'txt'],
    [
      'a drawing',
      'image/svg+xml',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      'txt',
    ],
    ['a script', 'text/javascript', Buffer.from('new ActiveXObject("WScript.Shell").Run("calc")'), 'txt'],
    [
      'an XML page',
      'application/xml',
      Buffer.from('<html xmlns="http://www.w3.org/1999/xhtml"><script>1</script></html>'),
      'txt',
    ],
  ])(
    "%s downloads under its id and its type's extension (as text when it would run), and a browser opening it runs nothing of it",
    async (_what, type, bytes, extension) => {
      const res = await receive(incoming({ mediaUrl: dataUri(type, bytes), mediaContentType: type }));
      expect(res.status).toBe(200);
      const { media } = await message(res.body.messageId);
      const got = await getBytes(ctx.gw, account, media.url);
      expect(got.status).toBe(200);
      // A token needs no quotes: `filename=med_….png`, or `filename="med_….png"`.
      const disposition = /^attachment; filename="?([^"]+)"?$/.exec(got.headers['content-disposition'] ?? '');
      expect(disposition?.[1]).toBe(`${media.mediaId}.${extension}`);
      expect(got.headers['x-content-type-options']).toBe('nosniff');
      expect(got.headers['content-security-policy']).toMatch(/(^|;\s*)sandbox(;|$)/);
      expect(got.headers['content-security-policy']).toMatch(/default-src 'none'/);
    },
  );

  test('a program a contact sends downloads under its id alone, never as a program that runs when opened', async () => {
    // The start of a Windows program: "MZ", then the offset of its PE header, where "PE\0\0" stands.
    const exe = Buffer.alloc(256);
    exe.write('MZ', 0, 'latin1');
    exe.writeUInt32LE(0x80, 0x3c);
    exe.write('PE\0\0', 0x80, 'latin1');
    const res = await receive(
      incoming({ mediaUrl: dataUri('application/x-msdownload', exe), mediaContentType: 'application/x-msdownload' }),
    );
    expect(res.status).toBe(200);
    const { media } = await message(res.body.messageId);
    expect(media.contentType).toBe('application/x-msdownload');
    const got = await getBytes(ctx.gw, account, media.url);
    expect(/^attachment; filename="?([^"]+)"?$/.exec(got.headers['content-disposition'] ?? '')?.[1]).toBe(
      media.mediaId,
    );
  });

  describe('a voice note is read in parts, as a player seeking in it asks (RFC 9110 ranges)', () => {
    let url: string;
    const note = wav(0.05);
    beforeAll(async () => {
      const res = await receive(incoming({ mediaUrl: dataUri('audio/wav', note), mediaContentType: 'audio/wav' }));
      expect(res.status).toBe(200);
      url = (await message(res.body.messageId)).media.url;
    });
    const headersKept = (got: Awaited<ReturnType<typeof getBytes>>) => {
      expect(got.headers['content-type']).toMatch(/^audio\/(x-)?wav$/);
      expect(got.headers['x-content-type-options']).toBe('nosniff');
      expect(got.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
      expect(got.headers['cache-control']).toBe('private, no-store');
      expect(got.headers['content-disposition']).toMatch(/^attachment; filename="?med_[\w-]+\.wav"?$/);
    };

    test('the whole file says that parts of it can be asked for', async () => {
      const got = await getBytes(ctx.gw, account, url);
      expect(got.status).toBe(200);
      expect(got.headers['accept-ranges']).toBe('bytes');
      expect(got.headers['content-range']).toBeUndefined();
      expect(got.bytes.equals(note)).toBe(true);
      headersKept(got);
    });

    test.each([
      ['its first bytes', 'bytes=0-1', 0, 1],
      ['a middle part', 'bytes=44-99', 44, 99],
      ['from a byte to the end', 'bytes=100-', 100, note.length - 1],
      ['its last bytes', 'bytes=-10', note.length - 10, note.length - 1],
      ['a range past the end, cut at the end', 'bytes=300-999999', 300, note.length - 1],
      ['a suffix longer than the file: all of it', 'bytes=-999999', 0, note.length - 1],
    ])('%s (%s) → 206 with those bytes and Content-Range', async (_what, range, first, last) => {
      const got = await getBytes(ctx.gw, account, url, { range });
      expect(got.status).toBe(206);
      expect(got.headers['content-range']).toBe(`bytes ${first}-${last}/${note.length}`);
      expect(got.headers['content-length']).toBe(String(last - first + 1));
      expect(got.headers['accept-ranges']).toBe('bytes');
      expect(got.bytes.equals(note.subarray(first, last + 1))).toBe(true);
      headersKept(got);
    });

    test.each([[`bytes=${note.length}-`], ['bytes=99999-100000'], ['bytes=-0']])(
      'a range with no byte of the file (%s) → 416 naming its size',
      async (range) => {
        const got = await getBytes(ctx.gw, account, url, { range });
        expect(got.status).toBe(416);
        expect(got.headers['content-range']).toBe(`bytes */${note.length}`);
        expect(JSON.parse(got.bytes.toString('utf8'))).toEqual({
          error: { code: 'RANGE_NOT_SATISFIABLE', message: expect.stringContaining(`${note.length} bytes`) },
        });
      },
    );

    test.each([
      ['malformed', { range: 'bytes=abc' }],
      ['a backwards range', { range: 'bytes=9-2' }],
      ['another unit', { range: 'items=0-1' }],
      ['several ranges', { range: 'bytes=0-1,4-5' }],
      ['under If-Range, a validator the file has none of', { range: 'bytes=0-1', 'if-range': '"v1"' }],
    ])('a Range that is %s → the whole file, 200', async (_what, headers) => {
      const got = await getBytes(ctx.gw, account, url, headers);
      expect(got.status).toBe(200);
      expect(got.headers['content-range']).toBeUndefined();
      expect(got.bytes.equals(note)).toBe(true);
      headersKept(got);
    });

    test("a part is read by the file's own account only", async () => {
      const stranger = await getBytes(ctx.gw, await createAccount(ctx.gw), url, { range: 'bytes=0-1' });
      expect(stranger.status).toBe(404);
      expect(JSON.parse(stranger.bytes.toString('utf8')).error.code).toBe('MEDIA_NOT_FOUND');
    });
  });

  describe('a kept file that can no longer be read says why: 404 to the account, the reason in the log', () => {
    /** A voice note kept for the account, and where its file is (the embedded store's disk). */
    const keptNote = async () => {
      const bytes = wav(0.05);
      const res = await receive(incoming({ mediaUrl: dataUri('audio/wav', bytes), mediaContentType: 'audio/wav' }));
      const { media } = await message(res.body.messageId);
      return { media, bytes, file: path.join(ctx.gw.dataDir, 'media', account.id, media.mediaId) };
    };
    const errorLines = (mediaId: string) =>
      logLines(ctx.gw.output()).filter((line) => line.mediaId === mediaId && line.level >= 50);
    /** Changes the gateway's database behind its back (PostgreSQL only). */
    const onDatabase = async (sql: string, values: unknown[]) => {
      const client = new Client({ connectionString: ctx.gw.env.LEADCHAT_DATABASE_URL });
      await client.connect();
      try {
        await client.query(sql, values);
      } finally {
        await client.end();
      }
    };
    const expectUnreadable = async (mediaId: string, url: string, reason: RegExp) => {
      const got = await api(ctx.gw, account, 'GET', url);
      expect(got.status).toBe(404);
      expect(got.body).toEqual({
        error: { code: 'MEDIA_NOT_FOUND', message: expect.stringMatching(/can no longer be read/) },
      });
      const lines = errorLines(mediaId);
      expect(lines).toEqual([
        expect.objectContaining({ accountId: account.id, mediaId, reason: expect.stringMatching(reason) }),
      ]);
      expect(lines[0]!.msg).toMatch(/kept file cannot be read/);
    };

    test('its file removed behind the gateway', async () => {
      const { media, bytes, file } = await keptNote();
      expect((await getBytes(ctx.gw, account, media.url)).status).toBe(200);
      if (BACKEND === 'lowdb') rmSync(file);
      else await onDatabase('DELETE FROM leadchat_blobs WHERE id = $1', [media.mediaId]);
      await expectUnreadable(media.mediaId, media.url, /missing/);
      // What it names is the file, never its content.
      expect(JSON.stringify(errorLines(media.mediaId))).not.toContain(bytes.toString('base64').slice(0, 40));
    });

    test('its file cut short behind the gateway, read whole or in part', async () => {
      const { media, file } = await keptNote();
      if (BACKEND === 'lowdb') truncateSync(file, 10);
      else
        await onDatabase('UPDATE leadchat_blobs SET bytes = substring(bytes FROM 1 FOR 10) WHERE id = $1', [
          media.mediaId,
        ]);
      await expectUnreadable(media.mediaId, media.url, /no longer holds the \d+ bytes recorded/);
      // A part within the size recorded, past what is left.
      const part = await getBytes(ctx.gw, account, media.url, { Range: 'bytes=20-29' });
      expect(part.status).toBe(404);
      expect(part.bytes.toString()).toMatch(/MEDIA_NOT_FOUND/);
    });

    if (BACKEND === 'lowdb')
      test('its file unreadable on the disk', async () => {
        const { media, file } = await keptNote();
        rmSync(file);
        mkdirSync(file);
        await expectUnreadable(media.mediaId, media.url, /EISDIR/);
      });

    test("another account's file, or none, is not found and logs nothing", async () => {
      const { media } = await keptNote();
      const stranger = await api(ctx.gw, await createAccount(ctx.gw), 'GET', media.url);
      expect(stranger.status).toBe(404);
      expect(stranger.body.error.message).toBe('Media not found');
      expect(errorLines(media.mediaId)).toEqual([]);
    });
  });

  test('a kept file is stored by no browser or cache that reads it, so none shows it once its contact is erased', async () => {
    const res = await receive(incoming({ mediaUrl: dataUri('image/png', png()), mediaContentType: 'image/png' }));
    const { media, contactId } = await message(res.body.messageId);
    const got = await getBytes(ctx.gw, account, media.url);
    expect(got.status).toBe(200);
    expect(got.headers['cache-control']?.split(/,\s*/)).toEqual(expect.arrayContaining(['private', 'no-store']));
    expect((await api(ctx.gw, account, 'DELETE', `contacts/${contactId}`)).status).toBe(204);
    expect((await getBytes(ctx.gw, account, media.url)).status).toBe(404);
  });

  test.each([
    ['a PNG declared as JPEG', 'image/jpeg', png()],
    ['a PNG declared as PDF', 'application/pdf', png()],
    ['a PNG declared as text', 'text/plain', png()],
    ['random bytes declared as PNG', 'image/png', Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])],
    ['text declared as PNG', 'image/png', Buffer.from('just text')],
  ])('mismatched mediaContentType: %s → 400, nothing stored', async (_what, declared, bytes) => {
    const body = incoming({ mediaUrl: dataUri(declared, bytes), mediaContentType: declared });
    expectPlainError(await receive(body), 400);
    // Nothing was kept under that messageSid: fixing the declared type makes a new message.
    const fixed = await receive({ customData: { ...body.customData, mediaUrl: null, mediaContentType: null } });
    expect(fixed.status).toBe(200);
    expect(await messagesOf((await message(fixed.body.messageId)).contactId)).toHaveLength(1);
  });

  test('a data URI whose declared type differs from mediaContentType is judged by the content', async () => {
    // The data URI says image/png, the field says image/jpeg, the bytes are PNG: the field must match the content.
    expectPlainError(
      await receive(incoming({ mediaUrl: dataUri('image/png', png()), mediaContentType: 'image/jpeg' })),
      400,
    );
  });

  test.each([
    ['not base64', 'data:image/png;base64,@@@not*base64@@@'],
    ['no base64 marker', `data:image/png,${png().toString('base64')}`],
    ['empty data', 'data:image/png;base64,'],
  ])('a malformed data URI (%s) → 400', async (_what, mediaUrl) => {
    expectPlainError(await receive(incoming({ mediaUrl, mediaContentType: 'image/png' })), 400);
  });

  test.each([
    ['plain text', 'not a url'],
    ['a local file', 'file:///etc/passwd'],
    ['a script', 'javascript:alert(1)'],
    ['an FTP address', 'ftp://files.example.com/photo.jpg'],
    ['an address with no host', 'https://'],
  ])('a mediaUrl that is %s → 400 naming customData.mediaUrl, nothing stored', async (_what, mediaUrl) => {
    const body = incoming({ mediaUrl, mediaContentType: 'image/jpeg' });
    const res = await receive(body);
    expectPlainError(res, 400);
    expect(res.body.error).toBe('customData.mediaUrl: must be an https:, http: or data: URL');
    // The same messageSid is still free: the refused message was not kept.
    const fixed = await receive({ customData: { ...body.customData, mediaUrl: null, mediaContentType: null } });
    expect(fixed.status).toBe(200);
    expect((await message(fixed.body.messageId)).media).toBeNull();
  });

  test.each(['http://cdn.example.com/a.jpg', 'HTTPS://CDN.EXAMPLE.COM/A.JPG'])(
    'a web mediaUrl (%s) is accepted',
    async (url) => {
      const res = await receive(incoming({ mediaUrl: url, mediaContentType: 'image/jpeg' }));
      expect(res.status).toBe(200);
      expect((await message(res.body.messageId)).media).toEqual({ url, contentType: 'image/jpeg', mediaId: null });
    },
  );

  test('a remote mediaUrl is kept as a reference', async () => {
    const url = 'https://cdn.example.com/files/photo.jpg?v=2';
    const res = await receive(incoming({ mediaUrl: url, mediaContentType: 'image/jpeg' }));
    expect(res.status).toBe(200);
    expect((await message(res.body.messageId)).media).toEqual({ url, contentType: 'image/jpeg', mediaId: null });
  });
});

describe('with LEADCHAT_MAX_MEDIA_BYTES=1024', () => {
  const small = useGateway({ LEADCHAT_MAX_MEDIA_BYTES: '1024' });
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(small.gw);
  });

  test('a file within the limit is accepted', async () => {
    const file = png(2, 2);
    expect(file.length).toBeLessThan(1024);
    const res = await receive(
      incoming({ mediaUrl: dataUri('image/png', file), mediaContentType: 'image/png' }),
      small.gw,
      owner,
    );
    expect(res.status).toBe(200);
  });

  test('an embedded file over the limit → 413 {error:"..."}, nothing stored', async () => {
    const file = png(30, 30);
    expect(file.length).toBeGreaterThan(1024);
    const body = incoming({ mediaUrl: dataUri('image/png', file), mediaContentType: 'image/png' });
    expectPlainError(await receive(body, small.gw, owner), 413);
    const retry = await receive(
      { customData: { ...body.customData, mediaUrl: 'https://cdn.example.com/big.png' } },
      small.gw,
      owner,
    );
    expect(retry.status).toBe(200);
  });

  test('a request body far over the limit → 413 {error:"..."}', async () => {
    const file = Buffer.concat([png(2, 2), Buffer.alloc(200_000, 1)]);
    expectPlainError(
      await receive(incoming({ mediaUrl: dataUri('image/png', file), mediaContentType: 'image/png' }), small.gw, owner),
      413,
    );
  });
});

describe('with LEADCHAT_MAX_MEDIA_BYTES=1048576: a file at the limit, however its JSON is written', () => {
  const limit = 1024 * 1024;
  const mb = useGateway({ LEADCHAT_MAX_MEDIA_BYTES: String(limit) });
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccount(mb.gw);
  });
  /** A PNG of exactly the limit: its trailing 0xFF bytes are "/" in base64, which some encoders escape. */
  const atLimit = () => {
    const head = png(2, 2);
    return Buffer.concat([head, Buffer.alloc(limit - head.length, 0xff)]);
  };
  const post = (json: string) =>
    api(mb.gw, owner, 'POST', 'incoming_custom_channel_message', {
      body: json,
      headers: { 'content-type': 'application/json' },
    });

  test('base64 wrapped in lines of 76 (MIME, as an email attachment holds it) is taken', async () => {
    const file = atLimit();
    const wrapped = file.toString('base64').replace(/.{76}/g, '$&\r\n');
    const body = incoming({ mediaUrl: `data:image/png;base64,${wrapped}`, mediaContentType: 'image/png' });
    const res = await post(JSON.stringify(body));
    expect(res.status).toBe(200);
    const stored = await api(mb.gw, owner, 'GET', `messages/${res.body.messageId}`);
    const kept = await getBytes(mb.gw, owner, stored.body.media.url);
    expect(kept.status).toBe(200);
    expect(kept.bytes.equals(file)).toBe(true);
  });

  test('slashes written "\\/" (PHP\'s json_encode) and a text of 10,000 characters written as \\u escapes are taken', async () => {
    const body = incoming({
      body: '日'.repeat(10_000),
      mediaUrl: dataUri('image/png', atLimit()),
      mediaContentType: 'image/png',
    });
    const json = JSON.stringify(body)
      .replaceAll('/', '\\/')
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const res = await post(json);
    expect(res.status).toBe(200);
    const stored = await api(mb.gw, owner, 'GET', `messages/${res.body.messageId}`);
    expect(stored.body.body).toBe('日'.repeat(10_000));
  });

  test('a file one byte over the limit is still 413, saying so', async () => {
    const res = await receive(
      incoming({
        mediaUrl: dataUri('image/png', Buffer.concat([atLimit(), Buffer.from([0])])),
        mediaContentType: 'image/png',
      }),
      mb.gw,
      owner,
    );
    expectPlainError(res, 413);
    expect(res.body.error).toMatch(/exceeds 1048576 bytes/);
  });
});
