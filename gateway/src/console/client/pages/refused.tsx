import type { Role } from '../../../api-contract.js';
import { HOME_PATH, type ConsolePage } from '../../pages.js';
import { PageTitle } from '../components/shell.js';
import { Link } from '../router.js';

/**
 * A page above the member's role, opened by its address (the server answered it 403): said plainly, with the way
 * on. The navigation never offers it.
 */
export function Refused(props: { page: ConsolePage; role: Role }) {
  return (
    <>
      <PageTitle>{props.page.title}</PageTitle>
      <p class="warning" role="alert">
        Your role ({props.role}) cannot open this page: it needs an admin or the account's owner. Ask one of them if you
        need something changed here.
      </p>
      <p>
        <Link href={HOME_PATH}>Go to the Inbox</Link>
      </p>
    </>
  );
}
