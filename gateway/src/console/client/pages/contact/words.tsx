import type { ApiResult } from '../../api.js';

/** What a panel's action did to the contact, for the view beneath it to read again what it shows. */
export type ContactChange = 'edited' | 'merged' | 'removed' | 'erased';

/**
 * A refusal in words: a 403 says who may do it (the member's role changed since the page was drawn, or the console
 * offered what the API refuses); any other, the API's own message.
 */
export const refusal = (res: Pick<ApiResult<unknown>, 'status' | 'error'>, what: string): string | undefined =>
  res.status === 403 ? `Only the owner and admins may ${what}: your role does not allow it.` : res.error;
