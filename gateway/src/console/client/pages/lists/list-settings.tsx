import type { List } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Button } from '../../components/button.js';
import { ConfirmAction } from '../../components/confirm.js';
import { Field, FormStatus, Panel } from '../../components/form.js';

/**
 * A list's name mended, and, for the owner and admins, the list deleted behind a second step: its contacts stay. A
 * deletion the API refuses (a campaign linked to the list, an import still running) says why in the API's words,
 * which name what to do first.
 */
export function ListSettingsPanel(props: {
  list: List;
  admin: boolean;
  onRenamed: (list: List) => void;
  onDeleted: () => void;
}) {
  const path = `/v1/lists/${encodeURIComponent(props.list.id)}`;
  const renaming = useAction({ name: 'New name' });
  const deleting = useAction();
  const rename = (e: SubmitEvent) => {
    e.preventDefault();
    const body = { name: String(new FormData(e.currentTarget as HTMLFormElement).get('rename-list') ?? '') };
    void renaming.run(() => call<List>('PATCH', path, body), 'List renamed.', props.onRenamed);
  };
  return (
    <Panel title={props.admin ? 'Rename or delete this list' : 'Rename this list'} id="list-settings-heading">
      <form onSubmit={rename} class="inline-form">
        <Field id="rename-list" label="New name" required autocomplete="off" defaultValue={props.list.name} />
        <Button type="submit" class="secondary" unavailable={renaming.busy}>
          Rename
        </Button>
      </form>
      <FormStatus error={renaming.error} done={renaming.done} />
      {props.admin && (
        <>
          <ConfirmAction
            label="Delete list"
            confirmLabel="Delete the list"
            danger
            busy={deleting.busy}
            warning="The list goes, with its import reports; its contacts and their conversations stay."
            onConfirm={() => deleting.run(() => call('DELETE', path), 'List deleted.', props.onDeleted)}
          />
          <p class="error" role="alert">
            {deleting.error ?? ''}
          </p>
        </>
      )}
    </Panel>
  );
}
