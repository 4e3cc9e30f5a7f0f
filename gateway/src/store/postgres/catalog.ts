import type { CollectionSpec, IndexSpec } from '../store.js';
import { ident, indexNameOf } from './sql.js';

/** The store's own tables start with this, so no collection can take their names. */
const RESERVED = /^leadchat_/;

/** The collections the gateway declared, looked up by the names its calls use. */
export class Catalog {
  private readonly specs = new Map<string, CollectionSpec>();

  constructor(collections: CollectionSpec[]) {
    for (const spec of collections) {
      ident(spec.name);
      if (RESERVED.test(spec.name) || this.specs.has(spec.name)) {
        throw new Error(`store: collection name "${spec.name}" is reserved or declared twice`);
      }
      for (const name of Object.keys(spec.indexes ?? {})) ident(indexNameOf(spec.name, name));
      this.specs.set(spec.name, spec);
    }
  }

  get collections(): CollectionSpec[] {
    return [...this.specs.values()];
  }

  /** The quoted table of a declared collection; a name from nowhere else reaches SQL. */
  table(collection: string): string {
    if (!this.specs.has(collection)) throw new Error(`store: unknown collection "${collection}"`);
    return ident(collection);
  }

  index(collection: string, name: string): IndexSpec {
    const spec = this.specs.get(collection)?.indexes?.[name];
    if (!spec) throw new Error(`store: collection "${collection}" has no index "${name}"`);
    return spec;
  }

  uniqueIndexes(collection: string): Array<[string, IndexSpec]> {
    return Object.entries(this.specs.get(collection)?.indexes ?? {}).filter(([, spec]) => spec.unique);
  }

  /** The declared index behind a database constraint name (a unique violation names it). */
  indexOfConstraint(collection: string, constraint: string | undefined): [string, IndexSpec] | undefined {
    return this.uniqueIndexes(collection).find(([name]) => indexNameOf(collection, name) === constraint);
  }
}
