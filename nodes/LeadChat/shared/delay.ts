import { NodeOperationError, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

/** Durations as the API writes them: whole s, m, h or d, largest unit first, each at most once ("15m", "1h30m"). */
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

export const DELAY_FORMAT_HINT =
  'Write a whole number of s, m, h or d, e.g. "15m", "2h" or "1h30m". Leave it empty to send the opening message at once.';

export const delayField: INodeProperties = {
  displayName: 'Delay Opening Message',
  name: 'delay',
  type: 'string',
  default: '',
  placeholder: 'e.g. 15m',
  description:
    "How long after joining the list the contact gets the campaign's opening message, e.g. 15m, 2h or 1h30m. A message from the lead in the meantime cancels it. Empty: at once.",
};

/** The delay to send as `delay`, or undefined for none; anything that is not a duration fails the item here. */
export function readDelay(this: IExecuteFunctions, raw: unknown, itemIndex: number): string | undefined {
  const text = typeof raw === 'string' ? raw.trim() : raw === undefined || raw === null ? '' : String(raw).trim();
  if (!text) return undefined;
  const parts = DURATION.exec(text);
  if (!parts || parts.slice(1).every((part) => !part || Number(part) === 0)) {
    throw new NodeOperationError(
      this.getNode(),
      `Delay Opening Message "${text.slice(0, 40)}" is not a duration such as "15m"`,
      { itemIndex, description: DELAY_FORMAT_HINT },
    );
  }
  return text;
}
