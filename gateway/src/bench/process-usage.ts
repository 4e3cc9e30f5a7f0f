/**
 * What processes of this machine use, from /proc (Linux): their CPU time and memory. On two cores shared by the load,
 * the gateway and PostgreSQL, the requests/s of a row is bounded by the CPU each request costs all three: the
 * PostgreSQL rows print it per request.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times: 100 on every Linux the gateway runs on. */
const TICKS = 100;

/** User and system CPU seconds of a process (undefined once it is gone, or off Linux). */
export function cpuSeconds(pid: number): number | undefined {
  try {
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th of them.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return undefined;
  }
}

/** CPU seconds of every process of this machine named `name` (a PostgreSQL server's backends all are). */
export function cpuSecondsOf(name: string): number {
  let total = 0;
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) total += cpuSeconds(Number(pid)) ?? 0;
    } catch {
      // Ended meanwhile.
    }
  }
  return total;
}

/** A process's resident memory and its peak, in MB ('n/a' off Linux or once it is gone). */
export function memoryMb(pid: number | undefined): { rss: string; peak: string } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = (field: string) =>
      `${(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024).toFixed(0)} MB`;
    return { rss: mb('VmRSS'), peak: mb('VmHWM') };
  } catch {
    return { rss: 'n/a', peak: 'n/a' };
  }
}
