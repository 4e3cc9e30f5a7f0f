/** One line of a credit history, as a table shows it. */
export interface CreditLine {
  id: string;
  createdAt: string;
  /** What the line is: a grant, a recharge, a message's cost by its kind and channel. */
  what: string;
  /** The amount and the balance after it, as the page writes credits; the amount is signed here. */
  amount: number;
  /** None on an agency's grant to a sub-account, or a deleted one's balance come back: neither changes the agency's. */
  balance: number | null;
  note: string;
  kind?: string;
}

/**
 * A credit history, newest first, as the credits page and the agency's sub-account page show it: when, what, the
 * amount signed, the balance after it and its note.
 */
export function CreditTable(props: { id: string; lines: CreditLine[]; credits: (n: number) => string }) {
  const { credits } = props;
  const caption = `${props.id}-caption`;
  return (
    <div class="table-scroll" role="region" aria-labelledby={caption} tabIndex={0}>
      <table class={`data-table ${props.id}`}>
        <caption id={caption}>Credit history, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col" class="num">
              Amount
            </th>
            <th scope="col" class="num">
              Balance after
            </th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {props.lines.map((line) => (
            <tr key={line.id} data-kind={line.kind}>
              <td>{new Date(line.createdAt).toLocaleString()}</td>
              <td>{line.what}</td>
              <td class="num">{(line.amount > 0 ? '+' : '') + credits(line.amount)}</td>
              <td class="num">{line.balance === null ? '' : credits(line.balance)}</td>
              <td class="wrap">{line.note}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
