/** A line of the gateway's log, as it writes it when its output is not a terminal: one JSON object a line. */
export interface LogLine {
  level: number;
  time: number;
  msg: string;
  [field: string]: unknown;
}

/** Every line of a gateway's output, each read as JSON: a line that is not JSON fails the read, naming it. */
export function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
    });
}

/** The start-up line: where the gateway listens and what it runs on, as fields. */
export function startupLine(output: string): LogLine {
  const line = logLines(output).find((l) => l.msg.startsWith('LeadChat gateway listening on '));
  if (!line) throw new Error(`no start-up line in:\n${output}`);
  return line;
}
