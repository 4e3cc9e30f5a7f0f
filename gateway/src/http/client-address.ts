import { ipKeyGenerator } from 'express-rate-limit';

/**
 * Whose budget a client address spends in the per-address limits (failed authentications, sign-ins): an IPv4
 * address as it is, an IPv6 one by its /64, the network one household or host is given, so stepping through its 2^64
 * addresses gets no fresh budget. An IPv4 address written as IPv6 (::ffff:192.0.2.1) is the IPv4 address.
 */
export const addressKey = (ip: string | undefined): string => (ip ? ipKeyGenerator(ip, 64) : '');
