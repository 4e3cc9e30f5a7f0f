import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Contact, Import } from '../../answers.js';
import { get } from '../../api.js';

const n = (v: number) => v.toLocaleString('en-US');

/** The contacts whose names a report reads, at most this many: a file repeating thousands of contacts names the first. */
const NAMED_CONTACTS = 50;

/** How far an import is: a progress bar of the rows processed out of all rows, read out as it moves. */
export function ImportProgress({ imp }: { imp: Import }) {
  const label =
    imp.status === 'done'
      ? `Import finished: ${n(imp.processed)} of ${n(imp.total)} rows processed.`
      : imp.status === 'queued'
        ? `Import queued: ${n(imp.total)} rows to process.`
        : `Importing: ${n(imp.processed)} of ${n(imp.total)} rows processed.`;
  return (
    <div class="import-progress">
      <label for={`progress-${imp.id}`}>{label}</label>
      <progress id={`progress-${imp.id}`} max={imp.total} value={imp.processed} />
    </div>
  );
}

/** What a warning left out, in words: "Phone “555-0110”". */
const FIELD_WORDS: Record<string, string> = { phone: 'Phone', email: 'Email', name: 'Name' };
const leftOut = (w: Import['rowWarnings'][number]) =>
  `${FIELD_WORDS[w.field] ?? w.field}${w.value !== undefined ? ` “${w.value}”` : ''}`;

const nameOf = (c: Contact) => `${c.firstName} ${c.lastName}`.trim() || c.phone || c.email || c.id;

/** The names of the contacts rows went to, read once the report is shown (the API lists rows by contact id). */
function useContactNames(ids: Array<string | null | undefined>): Record<string, string> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))].slice(0, NAMED_CONTACTS);
  const [names, setNames] = useState<Record<string, string>>({});
  const key = wanted.join(',');
  useEffect(() => {
    let live = true;
    void Promise.all(
      wanted.map(async (id) => {
        const res = await get<Contact>(`/v1/contacts/${encodeURIComponent(id)}`);
        return [id, res.ok ? nameOf(res.data!) : undefined] as const;
      }),
    ).then((found) => {
      if (live) setNames(Object.fromEntries(found.filter((f): f is readonly [string, string] => f[1] !== undefined)));
    });
    return () => {
      live = false;
    };
  }, [key]);
  return names;
}

/** "The first 1,000 of 1,204 rejected rows are listed; 204 more are not." when the API listed only the first ones. */
function More(props: { listed: number; all: number; what: string }) {
  if (props.all <= props.listed) return null;
  return (
    <p class="hint">
      The first {n(props.listed)} of {n(props.all)} {props.what} are listed; {n(props.all - props.listed)} more are not.
    </p>
  );
}

/** A table of rows under its heading, scrolling within the report when long. */
function RowTable(props: {
  id: string;
  kind: 'rejected' | 'warned' | 'repeated';
  title: string;
  head: string[];
  children: ComponentChildren;
  more?: ComponentChildren;
  intro?: string;
}) {
  return (
    <>
      <h3 id={props.id}>{props.title}</h3>
      {props.intro && <p class="hint">{props.intro}</p>}
      {props.more}
      <div class="table-scroll tall" role="region" aria-labelledby={props.id} tabIndex={0}>
        <table class={`import-rows ${props.kind}`}>
          <thead>
            <tr>
              {props.head.map((h) => (
                <th scope="col" key={h}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{props.children}</tbody>
        </table>
      </div>
    </>
  );
}

/**
 * The counts of a finished import, then by row in the file: the rows rejected (code and reason), the rows kept with
 * something left out (the field, the text left out, why) and the rows repeating an earlier one (which row, and the
 * contact both went to). The API lists the first 1,000 of each; the report says how many more there are.
 */
export function ImportReport({ imp }: { imp: Import }) {
  const names = useContactNames([
    ...imp.rowDuplicates.map((d) => d.contactId),
    ...imp.rowWarnings.map((w) => w.contactId),
  ]);
  const contactWords = (id: string | null | undefined, fallback: string) => (id ? (names[id] ?? fallback) : '—');
  return (
    <div class="import-report" role="region" aria-label="Import report">
      <dl class="counts">
        <div>
          <dt>Added</dt>
          <dd data-count="added">{n(imp.added)}</dd>
        </div>
        <div>
          <dt>Already in the list</dt>
          <dd data-count="alreadyInList">{n(imp.alreadyInList)}</dd>
        </div>
        <div>
          <dt>Duplicates in the file</dt>
          <dd data-count="duplicates">{n(imp.duplicates)}</dd>
        </div>
        <div>
          <dt>Kept with a warning</dt>
          <dd data-count="warnings">{n(imp.warnings)}</dd>
        </div>
        <div>
          <dt>Rejected</dt>
          <dd data-count="rejected">{n(imp.rejected)}</dd>
        </div>
        <div>
          <dt>Not reachable by a Live campaign</dt>
          <dd data-count="unreachable">{n(imp.unreachable)}</dd>
        </div>
      </dl>
      {imp.unreachable > 0 && (
        <p class="warning" role="status">
          {n(imp.unreachable)} added {imp.unreachable === 1 ? 'contact has' : 'contacts have'} no address on the channel
          of a Live campaign of this list (a phone for SMS and WhatsApp, an external ID for a custom channel): the
          campaign’s page names them.
        </p>
      )}
      {imp.errors.length > 0 && (
        <RowTable
          id={`rejected-${imp.id}`}
          kind="rejected"
          title="Rejected rows"
          head={['Row', 'Code', 'Reason']}
          intro="Not imported: correct these rows in the file and import it again (rows already imported are counted, not added twice)."
          more={<More listed={imp.errors.length} all={imp.rejected} what="rejected rows" />}
        >
          {imp.errors.map((e) => (
            <tr key={e.row}>
              <td>{e.row}</td>
              <td>
                <code>{e.code}</code>
              </td>
              <td>{e.message}</td>
            </tr>
          ))}
        </RowTable>
      )}
      {imp.rowWarnings.length > 0 && (
        <RowTable
          id={`warned-${imp.id}`}
          kind="warned"
          title="Rows kept with a warning"
          head={['Row', 'Left out', 'Contact', 'Why']}
          intro="Imported without what could not be read, or without a name when the row’s phone (or email) is another contact’s: one phone is one contact."
          more={
            <More
              listed={new Set(imp.rowWarnings.map((w) => w.row)).size}
              all={imp.warnings}
              what="rows kept with a warning"
            />
          }
        >
          {imp.rowWarnings.map((w) => (
            <tr key={`${w.row}-${w.field}`}>
              <td>{w.row}</td>
              <td>{leftOut(w)}</td>
              <td>{contactWords(w.contactId, 'the row’s contact')}</td>
              <td>{w.message}</td>
            </tr>
          ))}
        </RowTable>
      )}
      {imp.rowDuplicates.length > 0 && (
        <RowTable
          id={`repeated-${imp.id}`}
          kind="repeated"
          title="Duplicates in the file"
          head={['Row', 'Repeats row', 'Merged into']}
          intro="Each repeats the phone (or email, or external ID) of an earlier row: it went to the same contact, and nothing of it was added."
          more={<More listed={imp.rowDuplicates.length} all={imp.duplicates} what="duplicate rows" />}
        >
          {imp.rowDuplicates.map((d) => (
            <tr key={d.row}>
              <td>{d.row}</td>
              <td>{d.of ?? '—'}</td>
              <td>
                {d.contactId
                  ? contactWords(d.contactId, `the contact of row ${d.of ?? '?'}`)
                  : 'no contact: the earlier row was rejected'}
              </td>
            </tr>
          ))}
        </RowTable>
      )}
    </div>
  );
}
