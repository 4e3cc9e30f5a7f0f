import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook receiver on the loopback interface: it answers 200 at once, counting the deliveries. */
export interface HookReceiver {
  url: string;
  close: () => void;
  received: () => number;
  /** process.hrtime.bigint() of the last delivery (0n before the first). */
  lastAt: () => bigint;
}

export async function hookReceiver(): Promise<HookReceiver> {
  let received = 0;
  let lastAt = 0n;
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    req.resume().on('end', () => {
      received += 1;
      lastAt = process.hrtime.bigint();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => server.close(),
    received: () => received,
    lastAt: () => lastAt,
  };
}
