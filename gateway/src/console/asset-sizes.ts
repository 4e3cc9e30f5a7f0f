import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** Run by the build: the size of each console asset as served and as gzip would send it, to keep them small. */
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');
let total = 0;
let totalGzip = 0;
for (const name of readdirSync(dir).sort()) {
  const bytes = readFileSync(path.join(dir, name));
  const gzip = gzipSync(bytes, { level: 9 }).length;
  total += bytes.length;
  totalGzip += gzip;
  process.stdout.write(
    `console asset ${name.padEnd(10)} ${(bytes.length / 1024).toFixed(1).padStart(6)} kB, ${(gzip / 1024).toFixed(1).padStart(5)} kB gzipped\n`,
  );
}
process.stdout.write(
  `console assets total  ${(total / 1024).toFixed(1).padStart(6)} kB, ${(totalGzip / 1024).toFixed(1).padStart(5)} kB gzipped\n`,
);
