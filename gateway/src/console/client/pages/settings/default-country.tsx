import { PHONE_COUNTRIES } from '../../../../api-contract.js';
import type { Settings } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus, Panel } from '../../components/form.js';
import { Loading, useResource } from '../../components/load.js';
import { countryName, setDefaultCountry } from '../../default-country.js';
import { Button } from '../../components/button.js';

const nameOf = countryName;

/** By name, as people look a country up; the code beside it, as the API and files write it. */
const COUNTRIES = PHONE_COUNTRIES.map((code) => ({ code, label: `${nameOf(code)} (${code})` })).sort((a, b) =>
  a.label.localeCompare(b.label),
);

/**
 * The country of the phone numbers the team writes without a country code (defaultCountry of /v1/settings): under
 * United States, "(415) 555-0100" in a contact, an imported file or a custom channel's fromId is +14155550100.
 */
export function DefaultCountryPanel() {
  const settings = useResource<Settings>('/v1/settings');
  const saving = useAction({ defaultCountry: 'Default country' });
  const saved = settings.data?.defaultCountry;
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget as HTMLFormElement).get('default-country'));
    void saving.run(
      () => call<Settings>('PUT', '/v1/settings', { defaultCountry: code || null }),
      code
        ? `Numbers without a country code are now read as ${nameOf(code)} (${code}) numbers.`
        : 'Every phone number now needs its country code.',
      (data) => {
        settings.setData(data);
        setDefaultCountry(data.defaultCountry);
      },
    );
  };
  return (
    <Panel title="Phone numbers" id="default-country-heading">
      {saved === undefined ? (
        <Loading error={settings.error} />
      ) : (
        <form onSubmit={submit}>
          <div class="field">
            <label for="default-country">Default country</label>
            <p class="hint" id="default-country-hint">
              Phone numbers written without a country code, such as (415) 555-0100, are read as numbers of this country:
              in contacts, imported files and messages. A number starting with + is always read as written.
            </p>
            {/* Keyed by the saved value, so the choice shown is the saved one after each save. */}
            <select
              key={saved ?? ''}
              id="default-country"
              name="default-country"
              aria-describedby="default-country-hint"
            >
              <option value="" selected={saved === null}>
                None: every number needs its country code
              </option>
              {COUNTRIES.map(({ code, label }) => (
                <option key={code} value={code} selected={code === saved}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <Button type="submit" class="primary" unavailable={saving.busy}>
            Set default country
          </Button>
        </form>
      )}
      <FormStatus error={saving.error} done={saving.done} />
    </Panel>
  );
}
