import { HOME_PATH } from '../../pages.js';
import { PageTitle } from '../components/shell.js';
import { Link } from '../router.js';

export function NotFound() {
  return (
    <>
      <PageTitle>Page not found</PageTitle>
      <p>
        There is no such page in the console. <Link href={HOME_PATH}>Go to the Inbox</Link>.
      </p>
    </>
  );
}
