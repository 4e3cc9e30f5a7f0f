import { customAlphabet } from 'nanoid';

/** Opaque IDs with a type prefix, e.g. ct_3fK9… for a contact. */
const random = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 20);

export type IdPrefix =
  | 'acc' | 'ct' | 'lst' | 'mem' | 'cmp' | 'msg' | 'med' | 'dlv' | 'job' | 'whk' | 'ctx' | 'evt' | 'idk' | 'cnv' | 'opn' | 'imp' | 'imc' | 'ses';

export const newId = (prefix: IdPrefix): string => `${prefix}_${random()}`;

export const now = (): string => new Date().toISOString();

/** An epoch-ms time as the API writes times. */
export const iso = (ms: number): string => new Date(ms).toISOString();
