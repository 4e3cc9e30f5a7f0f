import { readdir } from 'node:fs/promises';

/**
 * The numbers of the files in `dir` whose names match `name` (its first group is the number), ascending; none when
 * the directory does not exist.
 */
export async function numberedFiles(dir: string, name: RegExp): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .map((file) => name.exec(file))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
}
