import { customAlphabet } from 'nanoid';
import { clockNow } from './clock.js';

/** Opaque IDs with a type prefix, e.g. ct_3fK9… for a contact. */
const random = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 20);

export type IdPrefix =
  | 'acc'
  | 'ct'
  | 'lst'
  | 'mem'
  | 'cmp'
  | 'msg'
  | 'med'
  | 'dlv'
  | 'job'
  | 'whk'
  | 'ctx'
  | 'evt'
  | 'idk'
  | 'cnv'
  | 'opn'
  | 'imp'
  | 'imc'
  | 'ses'
  | 'xid'
  | 'lsm'
  | 'unq'
  | 'nte'
  | 'svr'
  | 'aud';

export const newId = (prefix: IdPrefix): string => `${prefix}_${random()}`;

let lastMs = Number.NaN;
let lastText = '';

/** The time as the API writes times. The records of one request mostly share a millisecond: its text is made once. */
export function now(): string {
  const ms = clockNow();
  if (ms !== lastMs) {
    lastMs = ms;
    lastText = new Date(ms).toISOString();
  }
  return lastText;
}

/** An epoch-ms time as the API writes times. */
export const iso = (ms: number): string => new Date(ms).toISOString();
