import { useState } from 'preact/hooks';
import type { Import } from '../../answers.js';
import { Panel } from '../../components/form.js';
import { Loading } from '../../components/load.js';
import { ImportReport } from './import-report.js';
import { Pager, type usePaged } from './paged.js';

const STATUS = { queued: 'Queued', running: 'Running', done: 'Done' } as const;

/** The list's imports, newest first (GET /v1/lists/{id}/imports), each with its report on demand. */
export function PastImportsPanel(props: { paged: ReturnType<typeof usePaged<Import>> }) {
  const { paged } = props;
  const [shown, setShown] = useState<string | undefined>(undefined);
  const report = paged.items?.find((i) => i.id === shown);
  return (
    <Panel title="Past imports" id="past-imports-heading">
      {!paged.items ? (
        <Loading error={paged.error} />
      ) : paged.items.length === 0 ? (
        <p>No imports into this list yet.</p>
      ) : (
        <div class="table-scroll" role="region" aria-label="Table of past imports" tabIndex={0}>
          <table class="imports">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col">Rows</th>
                <th scope="col">Added</th>
                <th scope="col">Already in list</th>
                <th scope="col">Duplicates</th>
                <th scope="col">Rejected</th>
                <th scope="col">
                  <span class="sr-only">Report</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {paged.items.map((i) => (
                <tr key={i.id}>
                  <td>{new Date(i.createdAt).toLocaleString()}</td>
                  <td>
                    {STATUS[i.status]}
                    {i.status !== 'done' ? ` (${i.processed} of ${i.total})` : ''}
                  </td>
                  <td>{i.total}</td>
                  <td>{i.added}</td>
                  <td>{i.alreadyInList}</td>
                  <td>{i.duplicates}</td>
                  <td>{i.rejected}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      aria-expanded={shown === i.id}
                      aria-controls="past-import-report"
                      onClick={() => setShown(shown === i.id ? undefined : i.id)}
                    >
                      {shown === i.id ? 'Hide report' : 'Show report'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager label="Import pages" paged={paged} />
      <div id="past-import-report">{report && <ImportReport imp={report} />}</div>
    </Panel>
  );
}
