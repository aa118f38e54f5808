/**
 * The agent's tenant allow-list (`agents.{name}.tenants`): a call naming a tenant (spec §5.7 —
 * the request's `tenant` field, or the REST `/{tenant}` path segment; src/a2a/request.ts) the
 * list does not hold is refused before it reaches the agent, in the caller's protocol, as a 404:
 * to the caller the tenant is not served here, whether or not the agent knows it. Pure.
 */
import type { RequestFacts } from '../a2a/request.js';
import { GatewayError } from '../errors/gateway-error.js';

export function tenantRefusal(
  agent: string,
  allowed: readonly string[] | undefined,
  facts: RequestFacts | undefined,
): GatewayError | undefined {
  const tenant = facts?.tenant;
  if (allowed === undefined || tenant === undefined || allowed.includes(tenant)) return undefined;
  return new GatewayError('TENANT_NOT_FOUND', `agent "${agent}" serves no tenant "${tenant}"`, { agent, tenant });
}
