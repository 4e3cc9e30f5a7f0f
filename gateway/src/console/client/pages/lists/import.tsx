import { EXPORT_READ_ONLY_COLUMNS, EXTERNAL_ID_COLUMN, MAX_CUSTOM_FIELDS } from '../../../../api-contract.js';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Import } from '../../answers.js';
import { call, get } from '../../api.js';
import { useAction } from '../../components/action.js';
import { FormStatus, Panel } from '../../components/form.js';
import { useIdempotencyKey } from '../../components/idempotency-key.js';
import type { FieldLabels } from '../../components/problems.js';
import {
  CONTACT_FIELDS,
  decodeFile,
  DELIMITERS,
  ENCODINGS,
  guessColumns,
  guessDelimiter,
  guessEncoding,
  headerRow,
  MAX_FILE_BYTES,
  megabytes,
  notText,
  offerCustomFields,
  otherSeparator,
  separatorLine,
  tooLarge,
  tooLargeToImport,
  type ContactField,
} from './csv.js';
import { ImportProgress, ImportReport } from './import-report.js';
import { importPhones, useDefaultCountry } from '../../default-country.js';
import { Button } from '../../components/button.js';

/**
 * The files the dialog offers: CSV, Google Sheets' "Tab-separated values" (.tsv) and Excel's "Unicode Text" (.txt).
 * A file dialog shows no other, and the separator of each is guessed from its header row.
 */
const ACCEPTED = '.csv,.tsv,.txt,text/csv,text/tab-separated-values,text/plain';

/** How often a running import's progress is read (GET /v1/imports/{id}). */
const POLL_MS = 500;
/** The longest wait between two readings of the progress while they fail. */
const MAX_POLL_MS = 10_000;

/** The mapping form's labels, by the fields of POST /v1/lists/{id}/imports. */
const LABELS: FieldLabels = {
  csv: 'CSV file',
  delimiter: 'Columns are separated by',
  ...Object.fromEntries(CONTACT_FIELDS.map(([field, label]) => [`columns.${field}`, label])),
  'columns.externalIds': 'External ID column',
  'columns.externalIds.*': 'External ID column',
  'columns.customFields': 'Other columns, as custom fields',
  'columns.customFields.*': 'Custom field',
};

interface Chosen {
  name: string;
  bytes: Uint8Array;
  encoding: string;
  text: string;
}

/**
 * CSV import into a list: the file is read in the browser, its header row offered as the columns to map to the
 * contact's fields (each other column as a custom field the user names, or left out), then sent whole to the API,
 * which checks and normalizes every row as it does a contact. The import runs as a job; its progress is polled
 * until it is done, then its counts and rejected rows are shown.
 */
export function ImportPanel(props: { listId: string; onFinished: () => void }) {
  const country = useDefaultCountry();
  const [file, setFile] = useState<Chosen | undefined>(undefined);
  const [reading, setReading] = useState<string | undefined>(undefined);
  const [delimiter, setDelimiter] = useState(',');
  const [mapping, setMapping] = useState<Record<ContactField, string>>(guessColumns([]));
  const [custom, setCustom] = useState<Record<string, string>>({});
  const [external, setExternal] = useState({ header: '', label: '' });
  const [imp, setImp] = useState<Import | undefined>(undefined);
  const [pollError, setPollError] = useState<string | undefined>(undefined);
  const [failures, setFailures] = useState(0);
  const sending = useAction(LABELS);
  const key = useIdempotencyKey();
  const headers = file ? headerRow(file.text, delimiter) : [];

  const offer = (text: string, d: string) => {
    const found = headerRow(text, d);
    const guess = guessColumns(found);
    setMapping(guess);
    const mapped = new Set(Object.values(guess));
    // A list's export: its external ID column found with its label, its facts (Contact ID, Added to list, Opted
    // out) offered as no custom field, so that the file imports back as it is.
    const externalId = found.find((h) => EXTERNAL_ID_COLUMN.test(h) && !mapped.has(h));
    setExternal(
      externalId ? { header: externalId, label: EXTERNAL_ID_COLUMN.exec(externalId)![1]! } : { header: '', label: '' },
    );
    const facts = Object.fromEntries(
      found.filter((h) => (EXPORT_READ_ONLY_COLUMNS as readonly string[]).includes(h)).map((h) => [h, '']),
    );
    setCustom(
      offerCustomFields(
        found.filter((h) => h && !mapped.has(h)),
        facts,
      ),
    );
  };
  const choose = async (e: Event) => {
    const picked = (e.currentTarget as HTMLInputElement).files?.[0];
    setFile(undefined);
    setImp(undefined);
    setReading(undefined);
    if (!picked) return;
    // Too large for its text to be 20 MB in any encoding offered: not read at all.
    if (picked.size > MAX_FILE_BYTES) {
      setReading(tooLargeToImport(picked.name, `is ${megabytes(picked.size)}`));
      return;
    }
    const bytes = new Uint8Array(await picked.arrayBuffer());
    read({ name: picked.name, bytes }, guessEncoding(bytes));
  };
  // The text in an encoding, its separator guessed again: a header read in the wrong one may not show it.
  // A first line naming the separator (`sep=;`) gives it and is left out: the separator chosen here is the one sent.
  const read = (chosen: Pick<Chosen, 'name' | 'bytes'>, encoding: string) => {
    const decoded = decodeFile(chosen.bytes, encoding);
    const named = separatorLine(decoded);
    const text = named?.text ?? decoded;
    const refused =
      notText(chosen.name, chosen.bytes, text) ??
      tooLarge(chosen.name, decoded) ??
      (named && otherSeparator(chosen.name, named.delimiter));
    if (refused) {
      setFile(undefined);
      return setReading(refused);
    }
    const d = named?.delimiter ?? guessDelimiter(text);
    setDelimiter(d);
    setFile({ ...chosen, encoding, text });
    offer(text, d);
  };
  const changeDelimiter = (d: string) => {
    setDelimiter(d);
    if (file) offer(file.text, d);
  };
  const mapTo = (field: ContactField, header: string) => {
    const next = { ...mapping, [field]: header };
    setMapping(next);
    // A column mapped to a contact field is no custom field; one freed from it is offered as one again.
    const mapped = new Set(Object.values(next));
    setCustom(
      offerCustomFields(
        headers.filter((h) => h && !mapped.has(h)),
        custom,
      ),
    );
  };

  const start = (e: SubmitEvent) => {
    e.preventDefault();
    if (!file) return;
    const customFields = Object.fromEntries(
      Object.entries(custom)
        .filter(([header, name]) => name.trim() && header !== external.header)
        .map(([header, name]) => [name.trim(), header]),
    );
    const columns = {
      ...Object.fromEntries(Object.entries(mapping).filter(([, header]) => header)),
      ...(Object.keys(customFields).length ? { customFields } : {}),
      ...(external.header ? { externalIds: { [external.label.trim()]: external.header } } : {}),
    };
    setPollError(undefined);
    setFailures(0);
    const body = { csv: file.text, columns, delimiter };
    void sending.run(
      () => call<Import>('POST', `/v1/lists/${encodeURIComponent(props.listId)}/imports`, body, key.headers(body)),
      `${file.name} was accepted: the import runs on the gateway, and you may leave this page.`,
      (made) => {
        key.made();
        setImp(made);
      },
    );
  };

  // Polls the running import until it is done; the gateway does the work whether or not anyone watches. A reading
  // that fails (the connection lost, the gateway restarting) is said and tried again, less often each time, so the
  // progress goes on once the gateway answers again.
  const onFinished = useRef(props.onFinished);
  onFinished.current = props.onFinished;
  useEffect(() => {
    if (!imp) return;
    if (imp.status === 'done') return void onFinished.current();
    const timer = setTimeout(
      async () => {
        const res = await get<Import>(`/v1/imports/${encodeURIComponent(imp.id)}`);
        if (res.ok) {
          setPollError(undefined);
          setFailures(0);
          setImp(res.data);
        } else {
          setPollError(res.error);
          setFailures((n) => n + 1);
        }
      },
      Math.min(POLL_MS * 2 ** failures, MAX_POLL_MS),
    );
    return () => clearTimeout(timer);
  }, [imp, failures]);

  const running = imp !== undefined && imp.status !== 'done';
  return (
    <Panel title="Import contacts from a CSV file" id="import-heading">
      <p>
        The first row of the file must name its columns. {importPhones(country)} Each row is checked as a contact added
        by hand would be, a phone (or email) repeated in the file is imported once, and rows already in the list are
        counted, not added twice.
      </p>
      <div class="field">
        <label for="import-file">CSV file</label>
        <p class="hint" id="import-file-hint">
          Up to 20 MB. The file is read in your browser and sent to your gateway only.
        </p>
        <input
          id="import-file"
          type="file"
          accept={ACCEPTED}
          aria-describedby="import-file-hint"
          onChange={choose}
          disabled={running}
        />
      </div>
      <p class="error" role="alert">
        {reading ?? ''}
      </p>
      {file && (
        <form onSubmit={start} aria-label="Map the columns">
          <div class="field">
            <label for="import-encoding">Characters are encoded as</label>
            <p class="hint" id="import-encoding-hint">
              Guessed from the file: Excel saves “CSV UTF-8” as UTF-8 and “CSV (Comma delimited)” as Windows-1252 in
              Western Europe and the Americas. If the columns below show characters such as Ã© or �, choose another.
            </p>
            <select
              id="import-encoding"
              value={file.encoding}
              aria-describedby="import-encoding-hint"
              onChange={(e) => read(file, e.currentTarget.value)}
            >
              {ENCODINGS.map(([encoding, label]) => (
                <option key={encoding} value={encoding}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="import-delimiter">Columns are separated by</label>
            <select id="import-delimiter" value={delimiter} onChange={(e) => changeDelimiter(e.currentTarget.value)}>
              {DELIMITERS.map(([d, label]) => (
                <option key={label} value={d}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <fieldset>
            <legend>Contact fields</legend>
            <p class="hint">
              Which column of {file.name} holds each field. A phone, an email or an external ID is needed.
            </p>
            {CONTACT_FIELDS.map(([field, label]) => (
              <div class="field" key={field}>
                <label for={`map-${field}`}>{label}</label>
                <select
                  id={`map-${field}`}
                  value={mapping[field]}
                  onChange={(e) => mapTo(field, e.currentTarget.value)}
                >
                  <option value="">Not in the file</option>
                  {headers.filter(Boolean).map((h, i) => (
                    <option key={`${i}-${h}`} value={h}>
                      {h}
                    </option>
                  ))}
                </select>
              </div>
            ))}
          </fieldset>
          <fieldset>
            <legend>External ID, for a custom channel</legend>
            <p class="hint">
              The column holding each contact's ID in the system behind a custom channel (a live chat, a CRM), and that
              channel's label as its campaign names it: its opening messages go to this ID.
            </p>
            <div class="inline-fields">
              <div class="field">
                <label for="map-external-id">External ID column</label>
                <select
                  id="map-external-id"
                  value={external.header}
                  onChange={(e) => setExternal({ ...external, header: e.currentTarget.value })}
                >
                  <option value="">Not in the file</option>
                  {headers.filter(Boolean).map((h, i) => (
                    <option key={`${i}-${h}`} value={h}>
                      {h}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="map-external-label">Custom channel label</label>
                <input
                  id="map-external-label"
                  value={external.label}
                  placeholder="livechat"
                  required={external.header !== ''}
                  onInput={(e) => setExternal({ ...external, label: e.currentTarget.value })}
                />
              </div>
            </div>
          </fieldset>
          {Object.keys(custom).length > 0 && (
            <fieldset>
              <legend>Other columns, as custom fields</legend>
              <p class="hint">
                Name the custom field each column goes into, such as city; leave the name empty to leave the column out.
              </p>
              {Object.keys(custom).length > MAX_CUSTOM_FIELDS && (
                <p class="hint" id="import-custom-hint">
                  The file has {Object.keys(custom).length} other columns and a contact at most {MAX_CUSTOM_FIELDS}{' '}
                  custom fields: the first {MAX_CUSTOM_FIELDS} are named, the others left out. Name the ones to keep,
                  and empty the name of others.
                </p>
              )}
              {Object.entries(custom).map(([header, name], i) => (
                <div class="field" key={header}>
                  <label for={`custom-${i}`}>Custom field for the column “{header}”</label>
                  <input
                    id={`custom-${i}`}
                    value={name}
                    onInput={(e) => setCustom({ ...custom, [header]: e.currentTarget.value })}
                  />
                </div>
              ))}
            </fieldset>
          )}
          <Button type="submit" class="primary" unavailable={sending.busy || running}>
            Import
          </Button>
        </form>
      )}
      <FormStatus error={sending.error ?? pollError} done={sending.done} />
      {imp && <ImportProgress imp={imp} />}
      {imp?.status === 'done' && <ImportReport imp={imp} />}
    </Panel>
  );
}
