/** A positive whole number from the environment variable `name`, or `fallback` when it is unset or empty. */
export function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${JSON.stringify(raw)}: expected a positive integer`);
  return n;
}
