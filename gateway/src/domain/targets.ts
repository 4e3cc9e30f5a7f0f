import type { Gateway } from '../context.js';
import { fieldError } from '../errors.js';
import { refuseTarget } from '../outbound/target-policy.js';

/** Refuses, as a 400 naming `field`, a URL a tenant saves that the operator's target policy does not allow. */
export async function checkTarget(gw: Gateway, url: string, field: string): Promise<void> {
  const refused = await refuseTarget(gw.config.targetPolicy, url);
  if (refused) throw fieldError(field, refused, 'TARGET_REFUSED');
}
