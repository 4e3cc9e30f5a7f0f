import type { Doc, GatewaySettings, Reader } from '../store.js';
import type { LowdbCollectionSpec } from './collection.js';
import type { Transaction } from './transaction.js';

/** The store's own collection of gateway settings: one document per name, the name as its id. */
export const SETTINGS = 'gateway_settings';
export const settingsCollection: LowdbCollectionSpec = { name: SETTINGS };

interface Setting extends Doc {
  value: string;
}

type Run = <R>(fn: (t: Transaction) => Promise<R>) => Promise<R>;

/** One process holds the store: a transaction that finds the name free is the first to set it. */
export class LowdbSettings implements GatewaySettings {
  constructor(
    private readonly run: Run,
    private readonly reader: Reader,
  ) {}

  async get(name: string): Promise<string | undefined> {
    return (await this.reader.get<Setting>(SETTINGS, name))?.value;
  }

  putIfAbsent(name: string, value: string): Promise<string> {
    return this.run(async (t) => {
      const held = await t.get<Setting>(SETTINGS, name);
      return held ? held.value : (await t.insert<Setting>(SETTINGS, { id: name, value })).value;
    });
  }
}
