/**
 * The PostgreSQL store's transactions on a stand-in connection that records the statements sent and answers each
 * at once: for tests of which statements a transaction sends, with no database.
 */
import path from 'node:path';
import { gatewayModule } from './gateway-modules';

export type TxModule = typeof import('../../gateway/src/store/postgres/postgres-tx.js', {
  with: { 'resolution-mode': 'import' }
});
export type CatalogModule = typeof import('../../gateway/src/store/postgres/catalog.js', {
  with: { 'resolution-mode': 'import' }
});
export type DocumentsModule = typeof import('../../gateway/src/store/postgres/documents.js', {
  with: { 'resolution-mode': 'import' }
});

export type OneStatementModule = typeof import('../../gateway/src/store/postgres/one-statement.js', {
  with: { 'resolution-mode': 'import' }
});

export type TogetherModule = typeof import('../../gateway/src/store/postgres/together.js', {
  with: { 'resolution-mode': 'import' }
});

export type PostgresTx = import('../../gateway/src/store/postgres/postgres-tx.js', {
  with: { 'resolution-mode': 'import' }
}).PostgresTx;

/** A document of any fields. */
export type Row = { id: string } & Record<string, unknown>;

/** A statement as the connection was given it. */
export interface Sent {
  text: string;
  values?: unknown[];
}

export interface PostgresModules {
  tx: TxModule;
  catalog: CatalogModule;
  documents: DocumentsModule;
  oneStatement: OneStatementModule;
  together: TogetherModule;
}

/** How the store's one statement, which commits a transaction's writes by itself, begins (see one-statement.ts). */
export const ONE_STATEMENT = 'WITH leadchat_commit_';

const DIST = path.resolve(__dirname, '../../gateway/dist/store/postgres');

/**
 * The store's modules as built (ES modules, which jest's CommonJS tests load with import()), loaded before the
 * calling file's tests run: call it at the file's top level, and the answer once a test runs.
 */
export function postgresModules(): () => PostgresModules {
  let loaded: PostgresModules | undefined;
  beforeAll(async () => {
    loaded = {
      tx: (await gatewayModule(path.join(DIST, 'postgres-tx.js'))) as TxModule,
      catalog: (await gatewayModule(path.join(DIST, 'catalog.js'))) as CatalogModule,
      documents: (await gatewayModule(path.join(DIST, 'documents.js'))) as DocumentsModule,
      oneStatement: (await gatewayModule(path.join(DIST, 'one-statement.js'))) as OneStatementModule,
      together: (await gatewayModule(path.join(DIST, 'together.js'))) as TogetherModule,
    };
  });
  return () => loaded!;
}

/** A connection that records each statement in `sent` and answers it with the rows `rowsOf` gives. */
export function recordingConnection(rowsOf: (statement: Sent) => Array<Record<string, unknown>>): {
  sent: Sent[];
  query: (config: string | Sent) => Promise<unknown>;
} {
  const sent: Sent[] = [];
  const query = (config: string | Sent) => {
    const statement = typeof config === 'string' ? { text: config } : { text: config.text, values: config.values };
    sent.push(statement);
    return Promise.resolve({ command: statement.text.split(' ')[0], rows: rowsOf(statement) });
  };
  return { sent, query };
}
