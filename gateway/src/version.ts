import { existsSync, readFileSync } from 'node:fs';

const json = <T>(relative: string): T => JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as T;

/** The gateway's version, from its package.json (one level above both src/ and dist/). */
export const gatewayVersion: string = json<{ version: string }>('../package.json').version;

/** The commit the build was made from, as the build recorded it (scripts/build-info.mjs); null when unknown. */
export const gatewayCommit: string | null = existsSync(new URL('./build-info.json', import.meta.url))
  ? json<{ commit: string | null }>('./build-info.json').commit
  : null;

/** How the build names itself: "0.2.0 (commit 1a2b3c4d5e6f)", or the version alone when the commit is unknown. */
export const buildName = (): string => (gatewayCommit ? `${gatewayVersion} (commit ${gatewayCommit})` : gatewayVersion);
