import { useState } from 'preact/hooks';
import type { Credits, LowBalance } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { Field, FormStatus } from '../../components/form.js';
import { credits } from './labels.js';
import { Button } from '../../components/button.js';

/**
 * The balance under which the whole team is warned on every page (PUT /v1/credits/low-balance): admins and the
 * owner set it or turn it off; others read it.
 */
export function LowBalanceForm(props: { credits: Credits; admin: boolean; onSaved: (saved: LowBalance) => void }) {
  const current = props.credits.lowBalanceThreshold;
  const [value, setValue] = useState(current === null ? '' : String(current));
  const saving = useAction({ threshold: 'Warn me under' });
  if (!props.admin) {
    return (
      <p>
        {current === null
          ? 'No low-balance warning is set: an admin sets one here.'
          : `The team is warned on every page while the balance is under ${credits(current)} credits.`}
      </p>
    );
  }
  const save = (threshold: number | null) =>
    saving.run(
      () => call<LowBalance>('PUT', '/v1/credits/low-balance', { threshold }),
      (saved) =>
        saved.lowBalanceThreshold === null
          ? 'Low-balance warning turned off.'
          : `Saved: the team is warned under ${credits(saved.lowBalanceThreshold)} credits.`,
      (saved) => {
        setValue(saved.lowBalanceThreshold === null ? '' : String(saved.lowBalanceThreshold));
        props.onSaved(saved);
      },
    );
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    void save(value.trim() === '' ? null : Number(value));
  };
  return (
    <form onSubmit={submit} aria-label="Low-balance warning" noValidate>
      <Field
        id="low-balance"
        label="Warn me under"
        type="number"
        inputMode="decimal"
        min="0.01"
        step="0.01"
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
        hint="Credits. While the balance is under this, every page of the console says so, in time to ask for more. Empty: no such warning."
      />
      <Button type="submit" class="primary" unavailable={saving.busy}>
        Save warning
      </Button>{' '}
      {current !== null && (
        <Button type="button" class="secondary" unavailable={saving.busy} onClick={() => void save(null)}>
          Turn off
        </Button>
      )}
      <FormStatus error={saving.error} done={saving.done} />
    </form>
  );
}
