import type { SubAccount } from '../../answers.js';
import { credits, ruleText } from './labels.js';

/** The sub-accounts as a table; each row's button opens its credit history. */
export function SubAccountTable(props: { subs: SubAccount[]; selected?: string; onSelect: (id: string) => void }) {
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
          </tr>
        </thead>
        <tbody>
          {props.subs.map((s) => (
            <tr key={s.id} data-sub={s.id}>
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
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
