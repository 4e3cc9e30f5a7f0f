import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Engine } from './engine/ports/providers.js';
import { ApiError } from './errors.js';
import { createGateway, type Gateway } from './gateway.js';
import { errorBody } from './http/errors.js';
import { observeRequest } from './http/request-metrics.js';
import { warmUpHttp } from './http/warm-up.js';
import { metrics } from './metrics.js';
import { httpsRequired } from './http/middleware/https-only.js';
import type { Logger } from './log.js';
import { loadTls, renewedTls, type TlsFiles } from './tls.js';
import { warmUp } from './warm-up.js';

export interface RunningGateway {
  gw: Engine;
  /** The assembled gateway: its job runners, drain(), the application. */
  gateway: Gateway;
  address: net.AddressInfo;
  adminTokenFile?: string;
  tlsSource: string;
  /**
   * Serves the operator's certificate and key as their files now hold them, if they changed (checked every minute,
   * and at SIGHUP); a pair that cannot be served is logged and the one served stays.
   */
  reloadCertificate(): Promise<void>;
  stop(): Promise<void>;
}

const TLS_HANDSHAKE = 0x16;
const SHUTDOWN_GRACE_MS = 10_000;
/** Certbot renews a month before expiry: a minute's check costs nothing and needs no hook. */
const CERTIFICATE_CHECK_MS = 60_000;

/**
 * Starts the gateway (createGateway: the store, the job runners, the application) and serves it over HTTPS. A plain-HTTP
 * request on the same port is answered with HTTPS_REQUIRED and never reaches the application, unless a trusted
 * proxy forwarded it as https.
 */
export async function startGateway(config: Config, log: Logger, clock?: Clock): Promise<RunningGateway> {
  const gateway = await createGateway({ config, log, clock });
  try {
    const { app, admin, streams } = gateway;
    const gw = gateway.engine;
    const tls = await loadTls(config, gw.store);
    observeCertificate(tls, log);
    gateway.startJobs();
    // Before the port opens: the code of an incoming message's path compiled, and the pool's connections open with
    // its statements parsed, so that the first requests are answered as fast as the later ones.
    if (config.warmUp) {
      await warmUp(gw, log);
      await warmUpHttp(tls, log);
    }
    let shuttingDown = false;
    const secure = https.createServer({ cert: tls.cert, key: tls.key }, app);
    // Behind a TLS-terminating proxy the proxy may forward plain HTTP: the app then judges X-Forwarded-Proto.
    const plain = config.trustProxy
      ? http.createServer(app)
      : http.createServer((req, res) => {
          const err = httpsRequired();
          res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
          res.end(JSON.stringify(errorBody(req.url ?? '/', err)));
        });
    // A request Node cannot parse (request line and headers over 16 kB, malformed HTTP) would get a bare status
    // line, and over TLS the socket is destroyed before even that is flushed: answer in the API's shape instead.
    for (const server of [secure, plain]) server.on('clientError', unparseable);
    // Read once at start, a certificate renewed on disk (certbot, every 60 to 90 days) was served only after a
    // restart: until then the old one, expired in the end, for every client.
    let served: TlsFiles = tls;
    let refused: string | undefined;
    const reloadCertificate = async (): Promise<void> => {
      try {
        const renewed = await renewedTls(config, served);
        refused = undefined;
        if (!renewed) return;
        secure.setSecureContext({ cert: renewed.cert, key: renewed.key });
        served = renewed;
        const validTo = observeCertificate(renewed, log);
        log.info({ certificate: renewed.source, validTo }, 'the certificate changed on disk: it is served now');
      } catch (err) {
        const reason = (err as Error).message;
        // Once per reason: a certificate and key certbot replaces one after the other may be caught in between.
        if (reason !== refused)
          log.warn({ reason }, 'the certificate on disk cannot be served: the one served before still is');
        refused = reason;
      }
    };
    const certificateCheck = config.tlsCert
      ? setInterval(() => void reloadCertificate(), CERTIFICATE_CHECK_MS).unref()
      : undefined;
    const sockets = new Set<net.Socket>();
    let allClosed = () => {};
    const front = net.createServer((socket) => {
      sockets.add(socket);
      socket.once('close', () => {
        sockets.delete(socket);
        if (sockets.size === 0) allClosed();
      });
      socket.once('data', (first) => {
        socket.pause();
        socket.unshift(first);
        (first[0] === TLS_HANDSHAKE ? secure : plain).emit('connection', socket);
        process.nextTick(() => socket.resume());
      });
      socket.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      // Node's words name the address ("getaddrinfo ENOTFOUND gatway.local"), not the settings that gave it.
      front.once('error', (err: Error) =>
        reject(new Error(`cannot listen on LEADCHAT_HOST=${config.host} LEADCHAT_PORT=${config.port}: ${err.message}`)),
      );
      front.listen(config.port, config.host, resolve);
    });

    // Run before the app, this listener sets the headers every answer carries (as a middleware they would cost
    // every request a layer of the app's stack), and keeps the answers under way for a shutdown to close.
    const answering = new Set<http.ServerResponse>();
    for (const server of [secure, plain]) {
      server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
        const startedAt = performance.now();
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Strict-Transport-Security', 'max-age=31536000');
        if (shuttingDown) res.setHeader('Connection', 'close');
        answering.add(res);
        res.once('close', () => {
          observeRequest(req, res, startedAt);
          answering.delete(res);
        });
      });
    }

    // A shutdown first says so at /readyz while still serving, for LEADCHAT_SHUTDOWN_DELAY (or until `stop` is
    // asked again): a balancer stops sending new requests before the listening socket closes.
    //
    // No request a client has sent is reset. From the start of the shutdown every answer carries
    // `Connection: close`, so a connection that carries one more request closes after its answer, which tells the
    // client not to send another on it. A keep-alive connection idle meanwhile is not closed, as a request may be
    // on its way on it: it is left to its keep-alive timeout, which the client was told (`Keep-Alive: timeout=5`)
    // and stops reusing it before. The process then waits for every connection to close (bounded), as Go's
    // http.Server.Shutdown does, but without closing idle ones at once as it does: its clients retry such a request,
    // ours may not.
    let endDelay = () => {};
    let stopping: Promise<void> | undefined;
    const stop = () => {
      endDelay();
      return (stopping ??= (async () => {
        shuttingDown = true;
        clearInterval(certificateCheck);
        gateway.markStopping();
        for (const res of answering) if (!res.headersSent) res.setHeader('Connection', 'close');
        if (config.shutdownDelayMs > 0) await waitAtMost(config.shutdownDelayMs, (end) => (endDelay = end));
        front.close();
        // Event streams never finish by themselves: ended, their browsers reconnect to a process still serving.
        streams.close();
        if (sockets.size > 0) await waitAtMost(SHUTDOWN_GRACE_MS, (end) => (allClosed = end));
        for (const server of [secure, plain]) server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        await gateway.close();
      })());
    };

    return {
      gw,
      gateway,
      address: front.address() as net.AddressInfo,
      adminTokenFile: admin.file,
      tlsSource: tls.source,
      reloadCertificate,
      stop,
    };
  } catch (err) {
    await gateway.close();
    throw err;
  }
}

/**
 * The served certificate's expiry, as `/metrics` tells it; one already past is said at once, as its clients all refuse
 * it (with a metric nobody scrapes, the first to know would be n8n's failing workflows). Answers the expiry.
 */
function observeCertificate(tls: TlsFiles, log: Logger): string {
  const validTo = new Date(new X509Certificate(tls.cert).validTo).toISOString();
  metrics.certificateExpiry.set(Date.parse(validTo) / 1000);
  if (Date.parse(validTo) <= Date.now())
    log.warn(
      { certificate: tls.source, validTo },
      'the certificate served has expired: clients refuse it; renew it (the gateway serves the renewed files within a minute, or at SIGHUP)',
    );
  return validTo;
}

/** Waits `ms` at most; `cut` is given the function that ends the wait sooner. */
function waitAtMost(ms: number, cut: (end: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    cut(resolve);
    setTimeout(resolve, ms).unref();
  });
}

const answered = new WeakSet<net.Socket>();

function unparseable(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: net.Socket): void {
  // The rest of the request still arriving keeps failing to parse: already answered, it is only drained below.
  if (answered.has(socket)) return;
  if (err.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) return void socket.destroy();
  answered.add(socket);
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(431, 'HEADERS_TOO_LARGE', 'The request line and headers must stay under 16 kB')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError(408, 'REQUEST_TIMEOUT', 'The request took too long to arrive')
        : new ApiError(400, 'MALFORMED_REQUEST', 'The request is not valid HTTP');
  const url = /^[A-Z]+ (\S+)/.exec(err.rawPacket?.toString('latin1') ?? '')?.[1] ?? '/';
  const body = JSON.stringify(errorBody(url, error));
  socket.end(
    `HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // Closing while the client is still sending would reset the connection and lose the answer: read the rest
  // first (bounded in time).
  socket.resume();
  socket.setTimeout(5_000, () => socket.destroy());
}
