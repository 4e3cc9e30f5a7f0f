import { processed } from '../helpers/inbound';
import { twilio } from '../helpers/provider-accounts';
import {
  Receiver,
  request,
  twilioSignature,
  type Answer,
  type Received,
  type TestAccount,
  type TestGateway,
} from './api-support';

/**
 * A Twilio stand-in for a file's gateway that takes every send (201 with a new message sid) but those to a number set
 * `down`, refused for now (503) as many times as set, as when Twilio is down; and a lead's SMS to the gateway, signed
 * as Twilio signs it. Call it at the top of the file, before `useGateway(flaky.env)`: its start fills in `env`.
 */
export function flakyTwilio(publicUrl: string) {
  /** Numbers whose next sends are refused for now, and how many more times. */
  const down = new Map<string, number>();
  let sent = 0;
  let sids = 0;
  let provider: Receiver;

  const respond = (_n: number, req: Received): Answer => {
    if (!req.path.endsWith('/Messages.json')) return { status: 404 };
    const to = new URLSearchParams(req.raw).get('To') ?? '';
    const failures = down.get(to) ?? 0;
    if (failures > 0) {
      down.set(to, failures - 1);
      return { status: 503, body: JSON.stringify({ code: 20500, message: 'Service unavailable', status: 503 }) };
    }
    return { status: 201, body: JSON.stringify({ sid: `SM${String(++sent).padStart(32, '0')}`, status: 'queued' }) };
  };

  const env: Record<string, string> = { LEADCHAT_JOB_POLL: '100ms', LEADCHAT_PUBLIC_URL: publicUrl };
  beforeAll(async () => {
    provider = await Receiver.start(respond);
    env.LEADCHAT_TWILIO_API_URL = provider.url.replace(/\/hook$/, '');
  });
  afterAll(() => provider.close());

  return {
    env,
    down,
    /** The sends Twilio was asked for to `phone`, taken or refused, in order. */
    sendsTo: (phone: string) =>
      provider.requests.filter(
        (r) => r.path.endsWith('/Messages.json') && new URLSearchParams(r.raw).get('To') === phone,
      ),
    /** `from`'s SMS to the account's Twilio number, as Twilio posts it; answered once the gateway processed it. */
    sms(gw: TestGateway, account: TestAccount, from: string, body: string) {
      const path = `/v1/channels/twilio/${account.id}/incoming`;
      const params = {
        MessageSid: `SM${String(++sids).padStart(4, '0')}${'f'.repeat(28)}`,
        AccountSid: twilio.accountSid,
        From: from,
        To: twilio.from,
        Body: body,
        NumMedia: '0',
      };
      return processed(
        gw,
        request(gw, 'POST', path, {
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-twilio-signature': twilioSignature(twilio.authToken, publicUrl + path, params),
          },
          body: new URLSearchParams(params).toString(),
        }),
      );
    },
  };
}
