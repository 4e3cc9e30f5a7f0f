import { Fragment } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { SubAccount } from '../../answers.js';
import { ConfirmQuestion } from '../../components/confirm.js';
import { credits, ruleText } from './labels.js';

/**
 * The sub-accounts as a table; each row's buttons open its credit history, and delete it with all its data (a client
 * lost for good: nothing of it can be brought back). The deletion asks in a row of its own beneath, the table's
 * width, for the sub-account's email to be typed; cancelled, the focus goes back to the row's button.
 */
export function SubAccountTable(props: {
  subs: SubAccount[];
  selected?: string;
  onSelect: (id: string) => void;
  deleting?: boolean;
  onDelete: (sub: SubAccount) => Promise<unknown>;
}) {
  const [asking, setAsking] = useState<string | undefined>(undefined);
  const deleteButtons = useRef(new Map<string, HTMLButtonElement>());
  const close = (id: string) => {
    setAsking(undefined);
    deleteButtons.current.get(id)?.focus();
  };
  return (
    <div class="table-scroll" role="region" aria-labelledby="subaccounts-caption" tabIndex={0}>
      <table class="data-table">
        <caption id="subaccounts-caption">Sub-accounts, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col" class="num">
              Balance
            </th>
            <th scope="col">Auto-recharge</th>
            <th scope="col">
              <span class="visually-hidden">History</span>
            </th>
            <th scope="col">
              <span class="visually-hidden">Delete</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.subs.map((s) => (
            <Fragment key={s.id}>
              <tr data-sub={s.id}>
                <th scope="row">{s.name}</th>
                <td class="wrap">{s.email}</td>
                <td class="num">{credits(s.balance)}</td>
                <td>{ruleText(s.autoRecharge)}</td>
                <td>
                  <button
                    type="button"
                    class="secondary"
                    aria-pressed={props.selected === s.id}
                    onClick={() => props.onSelect(s.id)}
                    aria-label={`Credit history of ${s.name}`}
                  >
                    History
                  </button>
                </td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    ref={(b) => {
                      if (b) deleteButtons.current.set(s.id, b);
                      else deleteButtons.current.delete(s.id);
                    }}
                    aria-expanded={asking === s.id}
                    aria-label={`Delete sub-account ${s.name}`}
                    onClick={() => setAsking(s.id)}
                  >
                    Delete sub-account
                  </button>
                </td>
              </tr>
              {asking === s.id && (
                <tr data-deleting={s.id}>
                  <td colSpan={6}>
                    <ConfirmQuestion
                      name={`Delete sub-account ${s.name}`}
                      confirmLabel="Delete it and all its data"
                      danger
                      busy={props.deleting}
                      typed={{ label: `Type ${s.email} to confirm`, value: s.email }}
                      onConfirm={() => props.onDelete(s)}
                      onClose={() => close(s.id)}
                      warning={`${s.name} and everything of it go at once and for good: its contacts, conversations, messages, campaigns and team, who can no longer sign in to it. ${s.balance > 0 ? `Its unspent ${credits(s.balance)} credits come back to your credit history.` : 'It has no credits left to come back to you.'}`}
                    />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}
