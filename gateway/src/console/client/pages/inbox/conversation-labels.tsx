import { useEffect, useRef, useState } from 'preact/hooks';
import type { Conversation } from '../../answers.js';
import { call, get } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Button } from '../../components/button.js';
import { FormStatus } from '../../components/form.js';
import { LABEL_LENGTH } from '../../../../domain/label-key.js';

/** A label as GET /v1/labels lists it. */
export interface LabelInUse {
  name: string;
  conversations: number;
}

/** The account's labels in use, by name (GET /v1/labels), read again whenever `again` changes. */
export function useAccountLabels(again: unknown): LabelInUse[] {
  const [labels, setLabels] = useState<LabelInUse[]>([]);
  useEffect(() => {
    let live = true;
    void get<{ data: LabelInUse[] }>('/v1/labels').then((res) => {
      if (live && res.ok) setLabels(res.data!.data);
    });
    return () => {
      live = false;
    };
  }, [again]);
  return labels;
}

/**
 * The conversation's labels as chips, each with a button that removes it, and a field that adds one, suggesting the
 * account's labels (a datalist: typing a new one is as good). Labels are text: a label holding markup shows it.
 */
export function ConversationLabels(props: { conversation: Conversation; onChanged: (c: Conversation) => void }) {
  const { conversation } = props;
  const labels = conversation.labels ?? [];
  const labelling = useAction({ labels: 'Label', 'labels.#': 'Label', label: 'Label' });
  const [typed, setTyped] = useState('');
  const field = useRef<HTMLInputElement>(null);
  const suggested = useAccountLabels(labels.join('\n'));
  const path = `/v1/conversations/${encodeURIComponent(conversation.id)}/labels`;
  const own = new Set(labels.map((l) => l.toLowerCase()));

  const add = (e: Event) => {
    e.preventDefault();
    const label = typed.trim();
    void labelling.run(
      () => call<Conversation>('POST', path, { labels: [label] }),
      `Labelled ${label}.`,
      (c) => {
        setTyped('');
        props.onChanged(c);
      },
    );
  };
  const remove = (label: string) =>
    void labelling.run(
      () => call<Conversation>('DELETE', `${path}/${encodeURIComponent(label)}`),
      `Label ${label} removed.`,
      (c) => {
        props.onChanged(c);
        // Its button goes with the label: the focus goes to the field that adds one.
        requestAnimationFrame(() => field.current?.focus());
      },
    );

  return (
    <div class="inbox-assign inbox-labels">
      <h3 id="thread-labels-heading">Labels</h3>
      {labels.length > 0 ? (
        <ul class="inbox-label-chips" aria-labelledby="thread-labels-heading">
          {labels.map((label) => (
            <li key={label} class="inbox-label">
              <span>{label}</span>
              <button
                type="button"
                class="inbox-label-remove"
                aria-label={`Remove label ${label}`}
                title={`Remove label ${label}`}
                disabled={labelling.busy}
                onClick={() => remove(label)}
              >
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p class="hint">No labels yet.</p>
      )}
      <form class="inbox-assign-row" onSubmit={add}>
        <label for="thread-label-new">Add a label</label>
        <input
          id="thread-label-new"
          ref={field}
          list="thread-label-suggestions"
          maxLength={LABEL_LENGTH}
          autocomplete="off"
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
        <datalist id="thread-label-suggestions">
          {suggested
            .filter((l) => !own.has(l.name.toLowerCase()))
            .map((l) => (
              <option key={l.name} value={l.name} />
            ))}
        </datalist>
        <Button type="submit" class="secondary" unavailable={labelling.busy || typed.trim() === ''}>
          Add label
        </Button>
      </form>
      <FormStatus error={labelling.error} done={labelling.done} />
    </div>
  );
}
