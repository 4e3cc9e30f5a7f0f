import type { Import } from '../../answers.js';

const n = (v: number) => v.toLocaleString('en-US');

/** How far an import is: a progress bar of the rows processed out of all rows, read out as it moves. */
export function ImportProgress({ imp }: { imp: Import }) {
  const label = imp.status === 'done'
    ? `Import finished: ${n(imp.processed)} of ${n(imp.total)} rows processed.`
    : imp.status === 'queued' ? `Import queued: ${n(imp.total)} rows to process.` : `Importing: ${n(imp.processed)} of ${n(imp.total)} rows processed.`;
  return (
    <div class="import-progress">
      <label for={`progress-${imp.id}`}>{label}</label>
      <progress id={`progress-${imp.id}`} max={imp.total} value={imp.processed} />
    </div>
  );
}

/** The counts of a finished import and the rejected rows, each with its row number in the file, code and reason. */
export function ImportReport({ imp }: { imp: Import }) {
  return (
    <div class="import-report" role="region" aria-label="Import report">
      <dl class="counts">
        <div><dt>Added</dt><dd data-count="added">{n(imp.added)}</dd></div>
        <div><dt>Already in the list</dt><dd data-count="alreadyInList">{n(imp.alreadyInList)}</dd></div>
        <div><dt>Duplicates in the file</dt><dd data-count="duplicates">{n(imp.duplicates)}</dd></div>
        <div><dt>Rejected</dt><dd data-count="rejected">{n(imp.rejected)}</dd></div>
        <div><dt>Not reachable by a Live campaign</dt><dd data-count="unreachable">{n(imp.unreachable)}</dd></div>
      </dl>
      {imp.unreachable > 0 && (
        <p class="warning" role="status">
          {n(imp.unreachable)} added {imp.unreachable === 1 ? 'contact has' : 'contacts have'} no address on the channel of a Live campaign of
          this list (a phone for SMS and WhatsApp, an external ID for a custom channel): the campaign’s page says which.
        </p>
      )}
      {imp.errors.length > 0 && (
        <>
          <h3 id={`rejected-${imp.id}`}>Rejected rows</h3>
          {imp.rejected > imp.errors.length && <p class="hint">The first {n(imp.errors.length)} of {n(imp.rejected)} rejected rows are listed.</p>}
          <div class="table-scroll tall" role="region" aria-labelledby={`rejected-${imp.id}`} tabIndex={0}>
            <table class="rejected">
              <thead><tr><th scope="col">Row</th><th scope="col">Code</th><th scope="col">Reason</th></tr></thead>
              <tbody>
                {imp.errors.map((e) => <tr key={e.row}><td>{e.row}</td><td><code>{e.code}</code></td><td>{e.message}</td></tr>)}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
