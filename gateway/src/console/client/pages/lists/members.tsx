import type { ListContact } from '../../answers.js';
import { Panel } from '../../components/form.js';
import { Loading } from '../../components/load.js';
import { contactName } from '../inbox/labels.js';
import { Pager, type usePaged } from './paged.js';

const when = (iso: string) => new Date(iso).toLocaleString();

/** The list's contacts in the order they joined, a page at a time, each name opening the contact's panel; every value shown as text. */
export function MembersPanel(props: {
  paged: ReturnType<typeof usePaged<ListContact>>;
  onDetails: (contactId: string) => void;
  /** GET /v1/lists/{id}/export and the file's name, for those allowed it (owners, admins); none for an agent. */
  download?: { href: string; name: string };
}) {
  const { paged } = props;
  return (
    <Panel title="Contacts in this list" id="members-heading">
      {!paged.items ? (
        <Loading error={paged.error} />
      ) : paged.items.length === 0 ? (
        <p>No contacts yet: add one below or import a CSV file.</p>
      ) : (
        <div class="table-scroll" role="region" aria-label="Table of the contacts in this list" tabIndex={0}>
          <table class="members">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Phone</th>
                <th scope="col">Email</th>
                <th scope="col">Other fields</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {paged.items.map((m) => (
                <tr key={m.id}>
                  <td class="member-name">
                    <button type="button" class="link-button" onClick={() => props.onDetails(m.id)}>
                      {contactName(m)}
                    </button>
                  </td>
                  <td>{m.phone || '—'}</td>
                  <td>{m.email || '—'}</td>
                  <td>
                    {m.customFields
                      ? Object.entries(m.customFields)
                          .map(([k, v]) => `${k}: ${String(v)}`)
                          .join(', ')
                      : ''}
                  </td>
                  <td>{when(m.addedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager label="Contact pages" paged={paged} />
      {props.download && paged.items && paged.items.length > 0 && (
        <p>
          {/* A plain link: the session's cookie is what the API reads, and the browser saves the file as it streams in,
              named by the gateway after the list, however many contacts it holds. The link names it so too: a
              browser may name the download before the gateway's answer says how. */}
          <a class="download-link" href={props.download.href} download={props.download.name}>
            Download CSV
          </a>{' '}
          <span class="hint">
            Every contact of the list, for a spreadsheet or another CRM; it imports back as it is.
          </span>
        </p>
      )}
    </Panel>
  );
}
