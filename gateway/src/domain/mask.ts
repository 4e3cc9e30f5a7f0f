/**
 * A secret as the API shows it back: enough of its end for the owner to tell which one is set, never enough to
 * use. A short secret shows nothing, since its last four characters would be most of it.
 */
export function mask(secret: string): string {
  return secret.length > 8 ? `••••${secret.slice(-4)}` : '••••';
}

/** A provider's text with a secret masked out, for any text that may end up in a message's error or a log. */
export function redact(text: string, secret: string): string {
  return secret ? text.replaceAll(secret, mask(secret)) : text;
}
