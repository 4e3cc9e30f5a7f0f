/**
 * The providers' test credentials: what an account owner pastes into a channel's settings, the same in every test
 * so that a test can sign a webhook as the provider would, and every secret is long enough to be masked.
 */
export const hex = (c: string, n = 32) => c.repeat(n);

export const twilioCredentials = (accountSid = `AC${hex('a')}`) => ({
  accountSid,
  authToken: hex('1'),
  from: '+15005550006',
});
export const twilio = twilioCredentials();

export const whatsapp = {
  phoneNumberId: '1234567890',
  accessToken: 'EAAG-token-0123456789',
  appSecret: hex('2'),
  verifyToken: 'verify-me-please',
};

export const messenger = {
  pageId: '110200300400500',
  pageAccessToken: 'EAAB-page-token-0123456789',
  appSecret: hex('3'),
  verifyToken: 'messenger-verify-1',
};

export const instagram = {
  instagramAccountId: '17841400000000001',
  accessToken: 'IGAA-token-0123456789',
  appSecret: hex('4'),
  verifyToken: 'instagram-verify-1',
};
