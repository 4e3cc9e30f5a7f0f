/**
 * How much of a text's limit is used, under its field: "123 / 1,000", in the error style once over the limit.
 * The field names it in its aria-describedby (describedBy), so a screen reader reads it with the field rather than
 * on every keystroke; going over the limit is announced once.
 */
export const counterId = (id: string) => `${id}-count`;

/** The ids a field is described by, leaving out those it has not. */
export const describedBy = (...ids: Array<string | false | undefined>) => ids.filter(Boolean).join(' ') || undefined;

const count = (n: number) => n.toLocaleString('en-US');

export function Counter(props: { id: string; label: string; length: number; max: number }) {
  const over = props.length > props.max;
  return (
    <>
      <p class={over ? 'counter over' : 'counter'} id={counterId(props.id)}>
        {count(props.length)} / {count(props.max)}
        {over ? `: ${count(props.length - props.max)} too many` : ''}
      </p>
      <p class="sr-only" role="status">
        {over ? `${props.label} is longer than ${count(props.max)} characters` : ''}
      </p>
    </>
  );
}
