/** A message setting as it stands: the account's own words, else the built-in text the gateway sends instead. */
export function CurrentMessage(props: { id: string; own: string | null | undefined; builtIn: string }) {
  return (
    <p class="current" id={props.id}>
      {props.own ? (
        <>
          Now: your message, <span class="value">{props.own}</span>
        </>
      ) : (
        <>
          Now: the built-in message, <span class="value">{props.builtIn}</span>
        </>
      )}
    </p>
  );
}
