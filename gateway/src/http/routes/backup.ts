import { pipeline } from 'node:stream/promises';
import type { Gateway } from '../../context.js';
import { ApiError } from '../../errors.js';
import { ARCHIVE_KIND, BackupArchiveError, packArchive } from '../../store/lowdb/backup-archive.js';
import { STORE_FORMAT } from '../../store/lowdb/format.js';
import { canSnapshot, takeSnapshot } from '../../store/lowdb/snapshot.js';
import { gatewayVersion } from '../../version.js';
import { route, type Routes } from '../route.js';

/**
 * `POST /admin/v1/backup`: a consistent snapshot of the embedded store's data dir, streamed as a gzip'd tar
 * (store/lowdb/backup-archive.ts). Commits pause only while the snapshot's hard links are made; the archive is
 * streamed afterwards, while the gateway serves on. It holds the admin token and the TLS key: a secret.
 */
export function backupRoutes(admin: Routes, gw: Gateway): void {
  // One at a time: each snapshot holds a hard link to every file, and a second adds nothing but disk use.
  let running = false;
  route(admin, '/backup', {
    post: async (_req, res) => {
      const store = gw.store;
      if (!canSnapshot(store)) {
        throw new ApiError(
          409,
          'BACKUP_NOT_AVAILABLE',
          'This gateway runs on PostgreSQL: back the database up with pg_dump (README, "Backups")',
        );
      }
      if (running) throw new ApiError(409, 'BACKUP_RUNNING', 'A backup is being taken; try again once it ends');
      const damaged = store.damaged().map(({ file }) => file);
      if (damaged.length > 0) throw damagedStore(damaged.join(', '));
      running = true;
      try {
        let createdAt = '';
        const snapshot = await takeSnapshot(store, gw.config.dataDir, () => (createdAt = new Date().toISOString()));
        gw.log.info(
          { files: snapshot.files, heldMs: snapshot.heldMs },
          'backup: snapshot taken (new commits waited heldMs for it)',
        );
        let sent = false;
        try {
          const archive = await packArchive(snapshot.dir, {
            kind: ARCHIVE_KIND,
            storeFormat: STORE_FORMAT,
            gatewayVersion,
            createdAt,
            files: snapshot.files,
          }).catch((err: unknown) => {
            throw err instanceof BackupArchiveError ? damagedStore(err.message) : err;
          });
          res.status(200).set({
            'Content-Type': 'application/gzip',
            'Content-Disposition': `attachment; filename="leadchat-backup-${createdAt.replace(/[:.]/g, '-')}.tar.gz"`,
            'Cache-Control': 'no-store',
          });
          // Once streaming, a failure can no longer be answered with an error: the connection is cut instead, and
          // the client sees an archive cut short (the CLI then keeps nothing).
          await pipeline(archive, res, { end: false }).then(
            () => (sent = true),
            (err: Error) => {
              gw.log.warn({ err: err.message }, 'backup: the archive could not be sent in full');
              res.destroy();
            },
          );
        } finally {
          await snapshot.remove();
        }
        // The answer ends once the snapshot is gone: a client holding the whole archive finds the data dir as it was.
        if (sent) res.end();
      } finally {
        running = false;
      }
    },
  });
}

/** A backup of a damaged store would restore the damage: refused, so that the last good backup is not replaced. */
function damagedStore(what: string): ApiError {
  return new ApiError(
    409,
    'STORE_DAMAGED',
    `The store is damaged (${what}): a backup would hold the damage; restore the last good backup instead (README, "Backups")`,
  );
}
