/**
 * The admin listener: its own node:http server in front of the admin app (src/control/admin-app.ts),
 * on `admin.listen`, so the operator plane can stay on a private address while the traffic
 * listener faces clients. It keeps the same client limits as the traffic listener (principle 19):
 * an operator port is still a port. The app is the current config generation's
 * (src/gateway/generation.ts), read once per request: a reload swaps it.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { applyClientLimits, serverOptions, type ClientLimits } from '../transport/client-limits.js';
import { refuseConnect } from '../transport/request-target.js';

export function createAdminServer(
  app: { readonly current: { readonly admin: RequestListener } },
  limits: ClientLimits,
): Server {
  const server = createServer(serverOptions(limits), (req, res) => app.current.admin(req, res));
  server.on('connect', refuseConnect); // no tunnel here either (src/transport/request-target.ts)
  applyClientLimits(server, limits);
  return server;
}
