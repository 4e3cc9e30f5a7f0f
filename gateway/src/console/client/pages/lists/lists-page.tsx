import { useEffect, useState } from 'preact/hooks';
import type { Import, List, ListContact } from '../../answers.js';
import { call, get } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Field, FormStatus, Panel } from '../../components/form.js';
import { useIdempotencyKey } from '../../components/idempotency-key.js';
import { Loading } from '../../components/load.js';
import { PageTitle } from '../../components/shell.js';
import type { SessionInfo } from '../../session.js';
import { canAct } from '../../../../api-contract.js';
import { ContactPanel } from '../contact/contact-panel.js';
import { AddContactPanel } from './add-contact.js';
import { ImportPanel } from './import.js';
import { MembersPanel } from './members.js';
import { Pager, usePaged } from './paged.js';
import { PastImportsPanel } from './past-imports.js';
import { ItemLink, useSelected } from './selection.js';
import { ListSettingsPanel } from './list-settings.js';
import { Button } from '../../components/button.js';

/**
 * The account's lists, and one list opened: its contacts (each opening the contact's panel), adding one by hand, CSV
 * import, past imports, and the list renamed or deleted.
 */
export function ListsPage({ session }: { session: SessionInfo }) {
  const { selected, select } = useSelected();
  const admin = canAct(session.member.role, 'admin');
  return selected ? (
    <ListView key={selected} id={selected} admin={admin} onBack={() => select(null)} />
  ) : (
    <ListTable open={select} />
  );
}

function ListTable(props: { open: (id: string) => void }) {
  const paged = usePaged<List>('/v1/lists');
  const creating = useAction({ name: 'List name' });
  const key = useIdempotencyKey();
  const create = (e: SubmitEvent) => {
    e.preventDefault();
    const body = { name: String(new FormData(e.currentTarget as HTMLFormElement).get('list-name') ?? '') };
    void creating.run(
      () => call<List>('POST', '/v1/lists', body, key.headers(body)),
      'List created.',
      (list) => {
        key.made();
        props.open(list.id);
      },
    );
  };
  return (
    <>
      <PageTitle>Lists</PageTitle>
      <Panel title="New list" id="new-list-heading">
        <form onSubmit={create} class="inline-form">
          <Field id="list-name" label="List name" required autocomplete="off" />
          <Button type="submit" class="primary" unavailable={creating.busy}>
            Create list
          </Button>
        </form>
        <FormStatus error={creating.error} done={creating.done} />
      </Panel>
      <Panel title="Your lists" id="lists-heading">
        {!paged.items ? (
          <Loading error={paged.error} />
        ) : paged.items.length === 0 ? (
          <p>No lists yet.</p>
        ) : (
          <div class="table-scroll" role="region" aria-label="Table of your lists" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {paged.items.map((l) => (
                  <tr key={l.id}>
                    <td>
                      <ItemLink id={l.id} select={props.open}>
                        {l.name}
                      </ItemLink>
                    </td>
                    <td>{new Date(l.createdAt).toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager label="List pages" paged={paged} />
      </Panel>
    </>
  );
}

function ListView(props: { id: string; admin: boolean; onBack: () => void }) {
  const base = `/v1/lists/${encodeURIComponent(props.id)}`;
  const [list, setList] = useState<List | null | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    void get<List>(base).then((r) => {
      // 404: no such list, or another account's.
      setList(r.ok ? r.data! : r.status === 404 ? null : undefined);
      setError(r.ok || r.status === 404 ? undefined : r.error);
    });
  }, [base]);
  const members = usePaged<ListContact>(`${base}/contacts`);
  const imports = usePaged<Import>(`${base}/imports`, 10);
  const [details, setDetails] = useState<string | undefined>(undefined);
  const back = (
    <p>
      <a
        href={location.pathname}
        onClick={(e) => {
          e.preventDefault();
          props.onBack();
        }}
      >
        ← All lists
      </a>
    </p>
  );
  if (list === undefined)
    return (
      <>
        <PageTitle>List</PageTitle>
        {back}
        <Loading error={error} />
      </>
    );
  if (list === null)
    return (
      <>
        <PageTitle>List not found</PageTitle>
        {back}
        <p>This account has no such list.</p>
      </>
    );
  return (
    <>
      <PageTitle>{list.name}</PageTitle>
      {back}
      <MembersPanel
        paged={members}
        onDetails={setDetails}
        download={props.admin ? { href: `${base}/export`, name: `${list.name}.csv` } : undefined}
      />
      {details && (
        <ContactPanel
          id={details}
          admin={props.admin}
          listId={list.id}
          onClose={() => setDetails(undefined)}
          onChanged={() => void members.reload()}
        />
      )}
      <AddContactPanel listId={list.id} onAdded={members.first} />
      <ImportPanel
        listId={list.id}
        onFinished={() => {
          members.first();
          imports.first();
        }}
      />
      <PastImportsPanel paged={imports} />
      <ListSettingsPanel list={list} admin={props.admin} onRenamed={setList} onDeleted={props.onBack} />
    </>
  );
}
