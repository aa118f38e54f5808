/**
 * The admin listener: its own node:http server in front of the admin app (src/control/admin-app.ts),
 * on `admin.listen`, so the operator plane can stay on a private address while the traffic
 * listener faces clients. It keeps the same client limits as the traffic listener (principle 19):
 * an operator port is still a port.
 */
import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { applyClientLimits, serverOptions, type ClientLimits } from './transport/client-limits.js';

export function createAdminServer(app: Hono, limits: ClientLimits): Server {
  const server = createServer(serverOptions(limits), getRequestListener(app.fetch));
  applyClientLimits(server, limits);
  return server;
}
