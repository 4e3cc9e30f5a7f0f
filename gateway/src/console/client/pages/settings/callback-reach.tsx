import type { Channels } from '../../answers.js';

const ipv4 = (host: string): number[] | undefined => {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
};

/** Where an IPv4 address is: loopback, a private network, link-local; undefined for a public one. */
function ipv4Place([a, b]: number[]): string | undefined {
  if (a === 127 || a === 0) return 'a loopback address (this machine only)';
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return 'a private network address';
  if (a === 169 && b === 254) return 'a link-local address';
  return undefined;
}

/** Where an IPv6 address is (as a URL writes it, without brackets): loopback, unique local (fc00::/7), link-local. */
function ipv6Place(host: string): string | undefined {
  if (host === '::1' || host === '::') return 'a loopback address (this machine only)';
  // An IPv4 address written as IPv6 (::ffff:7f00:1 is 127.0.0.1).
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return ipv4Place([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  }
  if (/^f[cd][0-9a-f]{0,2}:/.test(host)) return 'a private network address';
  if (/^fe[89ab][0-9a-f]?:/.test(host)) return 'a link-local address';
  return undefined;
}

/**
 * Why a provider on the internet cannot reach this address, or undefined when it may: a loopback, private or
 * link-local host, or a local name ("localhost", a name without a dot, .local).
 */
export function unreachableHost(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return 'not an address';
  }
  if (host.startsWith('[')) return ipv6Place(host.slice(1, -1));
  const v4 = ipv4(host);
  if (v4) return ipv4Place(v4);
  if (host === 'localhost' || host.endsWith('.localhost')) return 'a loopback address (this machine only)';
  if (!host.includes('.') || /\.(local|internal|lan|home\.arpa)$/.test(host)) return 'a local network name';
  return undefined;
}

/**
 * Under the callback address a provider is given: a warning when the provider cannot reach it, saying what to set.
 * The gateway started without LEADCHAT_PUBLIC_URL makes its addresses from where it listens; a public address of a
 * private host (a tunnel, a reverse proxy) is what the provider needs.
 */
export function CallbackReach(props: { url: string; channels: Channels; provider: string }) {
  const where = unreachableHost(props.url);
  // Without LEADCHAT_PUBLIC_URL, the addresses GET /v1/channels gives are where the gateway listens.
  const configured = props.channels.publicUrlConfigured;
  if (configured && !where) return null;
  const fix =
    'Set LEADCHAT_PUBLIC_URL to the gateway’s public https address (such as https://chat.example.com, a reverse proxy or tunnel that reaches this gateway) and restart it: the addresses here follow it.';
  return (
    <p class="warning" role="status">
      {configured
        ? `${props.provider} cannot reach this address: ${new URL(props.url).hostname} is ${where}. `
        : where
          ? `${props.provider} cannot reach this address: the gateway was started without LEADCHAT_PUBLIC_URL, so it is the one the gateway listens on, ${where}. `
          : `The gateway was started without LEADCHAT_PUBLIC_URL, so this is the address it listens on: ${props.provider} cannot reach it unless it is the gateway’s public address. `}
      {fix}
    </p>
  );
}
