/**
 * A loopback relay between the gateway and PostgreSQL that counts round trips: on each connection, every time the
 * gateway speaks after the server has (or first), one more. Statements sent together (a pipeline) are one round
 * trip however many they are; a statement the gateway waits for before sending the next is one each.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RoundTrips {
  /** The database URL to give the gateway: the same database, through the relay. */
  url: string;
  /** Round trips counted since the relay started. */
  count: () => number;
  close: () => Promise<void>;
}

export async function roundTrips(databaseUrl: string): Promise<RoundTrips> {
  const target = new URL(databaseUrl);
  let trips = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((gateway) => {
    const database = net.connect(Number(target.port || 5432), target.hostname);
    let serverSpokeLast = true;
    for (const socket of [gateway, database]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    gateway.on('data', (chunk) => {
      if (serverSpokeLast) trips += 1;
      serverSpokeLast = false;
      database.write(chunk);
    });
    database.on('data', (chunk) => {
      serverSpokeLast = true;
      gateway.write(chunk);
    });
    gateway.on('close', () => database.destroy());
    database.on('close', () => gateway.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(databaseUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as AddressInfo).port);
  return {
    url: relayed.toString(),
    count: () => trips,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
