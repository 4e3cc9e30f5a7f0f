import { useState } from 'preact/hooks';
import type { SubAccount } from '../../answers.js';
import { call } from '../../api.js';
import { useAction } from '../../components/action.js';
import { useIdempotencyKey } from '../../components/idempotency-key.js';
import { Field, FormStatus } from '../../components/form.js';
import { credits } from './labels.js';
import { Button } from '../../components/button.js';

function SubAccountSelect(props: {
  id: string;
  subs: SubAccount[];
  selected?: string;
  onChange?: (email: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>Sub-account</label>
      <select
        id={props.id}
        name={props.id}
        key={props.selected}
        defaultValue={props.selected}
        onChange={(e) => props.onChange?.(e.currentTarget.value)}
      >
        {props.subs.map((s) => (
          <option key={s.id} value={s.email}>{`${s.name} (${s.email})`}</option>
        ))}
      </select>
    </div>
  );
}

const read = (e: SubmitEvent) => {
  e.preventDefault();
  return new FormData(e.currentTarget as HTMLFormElement);
};

/**
 * POST /v1/subaccounts/credits, the same grant as the API's, with its rules and errors. Each grant goes with an
 * Idempotency-Key kept until it succeeds: sent again after an answer that never arrived, the same grant is made once.
 */
export function GrantForm(props: { subs: SubAccount[]; selected?: string; onDone: (email: string) => void }) {
  const granting = useAction({ email: 'Sub-account', amount: 'Amount', description: 'Description' });
  const key = useIdempotencyKey();
  const submit = (e: SubmitEvent) => {
    const form = read(e);
    const email = String(form.get('grant-sub'));
    const description = String(form.get('grant-description')).trim();
    const body = { email, amount: Number(form.get('grant-amount')), ...(description ? { description } : {}) };
    const headers = key.headers(body);
    const target = e.currentTarget as HTMLFormElement;
    const granted = () => {
      key.made();
      props.onDone(email);
    };
    void granting
      .run(
        () => call('POST', '/v1/subaccounts/credits', body, headers),
        `${credits(body.amount)} credits granted.`,
        granted,
      )
      .then((ok) => ok && target.reset());
  };
  return (
    <form onSubmit={submit}>
      <SubAccountSelect
        id="grant-sub"
        subs={props.subs}
        selected={props.subs.find((s) => s.id === props.selected)?.email}
      />
      <Field
        id="grant-amount"
        label="Amount"
        type="number"
        min="0.01"
        step="0.01"
        required
        inputMode="decimal"
        hint="Credits to add, up to 2 decimal places."
      />
      <Field id="grant-description" label="Description (optional)" maxLength={500} />
      <Button type="submit" class="primary" unavailable={granting.busy}>
        Grant credits
      </Button>
      <FormStatus error={granting.error} done={granting.done} />
    </form>
  );
}

/**
 * PUT /v1/subaccounts/auto-recharge: below the threshold, the agency is asked (auto_recharge event) to add the amount;
 * saving withdraws a request still waiting and asks again, which is how an agency whose receiver missed one asks anew.
 * The fields show the rule of the sub-account chosen in the form, as it is: off when there is none.
 */
export function AutoRechargeForm(props: { subs: SubAccount[]; selected?: string; onDone: (email: string) => void }) {
  const saving = useAction({
    email: 'Sub-account',
    enabled: 'On',
    threshold: 'When the balance is below',
    amount: 'Add',
  });
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const current =
    props.subs.find((s) => s.email === chosen) ?? props.subs.find((s) => s.id === props.selected) ?? props.subs[0];
  const rule = current?.autoRecharge;
  const submit = (e: SubmitEvent) => {
    const form = read(e);
    const email = String(form.get('recharge-sub'));
    const body = {
      email,
      enabled: form.get('recharge-enabled') === 'on',
      threshold: Number(form.get('recharge-threshold')),
      amount: Number(form.get('recharge-amount')),
    };
    void saving.run(
      () => call('PUT', '/v1/subaccounts/auto-recharge', body),
      'Auto-recharge saved.',
      () => props.onDone(email),
    );
  };
  return (
    <form onSubmit={submit} key={`${current?.id}:${rule?.enabled}:${rule?.threshold}:${rule?.amount}`}>
      <SubAccountSelect id="recharge-sub" subs={props.subs} selected={current?.email} onChange={setChosen} />
      <label class="choice">
        <input type="checkbox" name="recharge-enabled" defaultChecked={rule?.enabled ?? false} /> On
      </label>
      <Field
        id="recharge-threshold"
        label="When the balance is below"
        type="number"
        min="0.01"
        step="0.01"
        required
        inputMode="decimal"
        defaultValue={rule ? String(rule.threshold) : ''}
      />
      <Field
        id="recharge-amount"
        label="Add"
        type="number"
        min="0.01"
        step="0.01"
        required
        inputMode="decimal"
        defaultValue={rule ? String(rule.amount) : ''}
        hint={
          rule
            ? `Now: below ${credits(rule.threshold)}, add ${credits(rule.amount)}.${rule.pending ? ' A request waits for its grant: saving asks again.' : ''}`
            : 'Your auto_recharge webhook gets the request; grant the amount with its idempotency_key.'
        }
      />
      <Button type="submit" class="primary" unavailable={saving.busy}>
        Save auto-recharge
      </Button>
      <FormStatus error={saving.error} done={saving.done} />
    </form>
  );
}
