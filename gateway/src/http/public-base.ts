import type { Request } from 'express';
import type { Gateway } from '../context.js';

/** The gateway's public address: the configured one, else the one this request came to. */
export const publicBase = (gw: Gateway, req: Request) => gw.config.publicUrl ?? `${req.protocol}://${req.get('host')}`;
