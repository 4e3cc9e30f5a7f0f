import { close, constants, fdatasync, fstat, ftruncate, open, write } from 'node:fs';
import { refuseWhenFaulty } from './full-disk.js';

const done = (resolve: () => void, reject: (err: Error) => void) => (err: Error | null) =>
  err ? reject(err) : resolve();

/**
 * Where the system offers it (Linux, macOS), the file is opened with O_DSYNC: a write returns once its bytes are
 * durable, as a write followed by fdatasync would, in one system call and one trip to the thread pool instead of
 * two. Elsewhere (Windows) each append is followed by an fdatasync.
 */
const DSYNC: number = constants.O_DSYNC ?? 0;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | DSYNC;

/**
 * A file opened for appending, written through plain file-descriptor calls: every group commit makes one durable
 * append, and these calls cost the event loop less than the same calls on a FileHandle.
 */
export class AppendFile {
  private constructor(private readonly fd: number) {}

  static open(path: string): Promise<AppendFile> {
    return new Promise((resolve, reject) =>
      open(path, APPEND, 0o666, (err, fd) => (err ? reject(err) : resolve(new AppendFile(fd)))),
    );
  }

  /** Appends `data` and returns once it is durable. */
  async appendDurably(data: Buffer): Promise<void> {
    refuseWhenFaulty();
    await this.writeAll(data);
    if (!DSYNC) await this.datasync();
  }

  private async writeAll(data: Buffer): Promise<void> {
    for (let offset = 0; offset < data.length; ) {
      offset += await new Promise<number>((resolve, reject) =>
        write(this.fd, data, offset, data.length - offset, null, (err, written) =>
          err ? reject(err) : resolve(written),
        ),
      );
    }
  }

  datasync(): Promise<void> {
    return new Promise((resolve, reject) => fdatasync(this.fd, done(resolve, reject)));
  }

  async truncate(length: number): Promise<void> {
    refuseWhenFaulty('shrink');
    await new Promise<void>((resolve, reject) => ftruncate(this.fd, length, done(resolve, reject)));
  }

  /** The file's length on disk now: what a failed append left of itself there, if anything. */
  size(): Promise<number> {
    return new Promise((resolve, reject) => fstat(this.fd, (err, stats) => (err ? reject(err) : resolve(stats.size))));
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => close(this.fd, done(resolve, reject)));
  }
}
