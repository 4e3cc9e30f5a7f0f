import { Panel } from '../../components/form.js';
import { PageTitle } from '../../components/shell.js';
import type { SessionInfo } from '../../session.js';
import { ApiKeyPanel } from './api-key.js';
import { DefaultCountryPanel } from './default-country.js';

/**
 * Settings › Account: the account itself and its settings (the default country of phone numbers), then its API key
 * (spec §5.2: Settings > Account > API Key).
 */
export function AccountPage({ session }: { session: SessionInfo }) {
  const { account } = session;
  return (
    <>
      <PageTitle>Account</PageTitle>
      <Panel title="Account" id="account-heading">
        <dl class="facts">
          <dt>Name</dt>
          <dd>{account.name}</dd>
          <dt>Email</dt>
          <dd>{account.email}</dd>
          <dt>Type</dt>
          <dd>{account.type === 'agency' ? 'Agency' : 'Standard'}</dd>
          <dt>Account ID</dt>
          <dd>
            <code>{account.id}</code>
          </dd>
        </dl>
      </Panel>
      <DefaultCountryPanel />
      <ApiKeyPanel />
    </>
  );
}
