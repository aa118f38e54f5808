/**
 * The interfaces an agent card advertises, read in one place for every reader of a card: the
 * card rewrite (src/cards/rewrite.ts; the byte and protobuf rewrites share the names below), the
 * agents' gRPC addresses (src/bindings/grpc/agents.ts), the console's fleet view
 * (src/console/card-protocols.ts) and the card findings (card-findings.ts). Pure.
 *
 * Shapes (wire-reference §3, §6.5): 1.0 `supportedInterfaces[]` {`url`, `protocolBinding`,
 * `protocolVersion`}; 0.3 `url` + `preferredTransport` (JSONRPC when absent) and
 * `additionalInterfaces[]` {`url`, `transport`}, under the card's top-level `protocolVersion`.
 * a2a-js compat servers serve hybrids with both (capture `v1compat--v03client-jsonrpc-card.http`),
 * so both are read, in card order: `supportedInterfaces`, `url`, `additionalInterfaces`.
 * Duplicates stay (that hybrid lists its JSON-RPC URL three times): each is a URL a client may
 * call, so each is rewritten and each is checked.
 */

/** The card's lists of interfaces: 1.0 (and hybrid), 0.3. */
export const INTERFACE_LISTS = ['supportedInterfaces', 'additionalInterfaces'] as const;
export type InterfaceList = (typeof INTERFACE_LISTS)[number];

/**
 * The keys naming a list entry's binding, the first one not null or absent wins
 * (`protocolBinding ?? transport`): 1.0 `protocolBinding`, 0.3 `transport`, in either list, as a
 * hybrid entry may carry both.
 */
export const ENTRY_BINDING_KEYS = ['protocolBinding', 'transport'] as const;

/** The key naming the binding of a 0.3 card's own `url`, JSONRPC when absent (wire-reference §6.5). */
export const MAIN_BINDING_KEY = 'preferredTransport';
const MAIN_DEFAULT_BINDING = 'JSONRPC';

/**
 * A binding as the card spells it: the core values (wire-reference §3), or a custom one (a URI,
 * §5.8). Not operations.ts's `Binding`, which is how the gateway classifies a request.
 */
export type CardBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | (string & {});

/** Which card field an interface is: the 0.3 card's own `url`, or an entry of a list. */
export type InterfaceWhere = { readonly field: 'url' } | { readonly field: InterfaceList; readonly index: number };

export interface CardInterface {
  readonly url: string;
  /** As written (case kept: `isGrpcBinding` ignores case); undefined when the entry names none. */
  readonly binding: CardBinding | undefined;
  /**
   * The `protocolVersion` as written (`1.0`, `0.3.0`). A 1.0 entry has its own or none: a
   * hybrid's top-level one describes its 0.3 fields, not the 1.0 list. The 0.3 fields have the
   * card's, else `0.3`: only a 0.3 card has them (wire-reference §6.5).
   */
  readonly version: string | undefined;
  readonly where: InterfaceWhere;
}

/** Every interface of a 1.0, 0.3 or hybrid card; anything that is no card has none. */
export function interfacesOf(card: unknown): CardInterface[] {
  if (!isObject(card)) return [];
  const version03 = stringOf(card['protocolVersion']) ?? '0.3';
  return [
    ...listed(card, 'supportedInterfaces', undefined),
    ...mainInterface(card, version03),
    ...listed(card, 'additionalInterfaces', version03),
  ];
}

/**
 * The paths of the card's HTTP+JSON interfaces below the path the agent is mounted under
 * (`/a2a/rest` for `http://agent/a2a/rest` mounted at `/`): what comes between one of them and
 * a REST route is a `/{tenant}` segment (wire-reference §1, §5.7), which the request decoder
 * cannot tell from a base-path segment without them (src/a2a/rest-routes.ts `tenantFromPrefix`).
 */
export function restBasePaths(card: unknown, mountPath: string): string[] {
  const mount = mountPath.replace(/\/+$/, '');
  const out = new Set<string>();
  for (const { url, binding } of interfacesOf(card)) {
    if (binding?.toUpperCase() !== 'HTTP+JSON') continue;
    const path = pathOf(url)?.replace(/\/+$/, '');
    if (path !== undefined && (path === mount || path.startsWith(`${mount}/`))) out.add(path.slice(mount.length));
  }
  return [...out];
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

/** A binding (1.0) or transport (0.3) that names gRPC, in any case. */
export function isGrpcBinding(binding: unknown): boolean {
  return typeof binding === 'string' && binding.toUpperCase() === 'GRPC';
}

/** The name an interface's URL goes by in reports: `url`, `supportedInterfaces[2].url`. */
export function interfaceField(where: InterfaceWhere): string {
  return where.field === 'url' ? 'url' : `${where.field}[${where.index}].url`;
}

function listed(card: Record<string, unknown>, field: InterfaceList, version: string | undefined): CardInterface[] {
  const entries = card[field];
  if (!Array.isArray(entries)) return [];
  const out: CardInterface[] = [];
  entries.forEach((entry: unknown, index) => {
    if (!isObject(entry) || typeof entry['url'] !== 'string') return;
    const own = stringOf(entry['protocolVersion']);
    out.push({ url: entry['url'], binding: entryBinding(entry), version: own ?? version, where: { field, index } });
  });
  return out;
}

function mainInterface(card: Record<string, unknown>, version: string): CardInterface[] {
  const url = card['url'];
  if (typeof url !== 'string') return [];
  const binding = stringOf(card[MAIN_BINDING_KEY]) ?? MAIN_DEFAULT_BINDING;
  return [{ url, binding, version, where: { field: 'url' } }];
}

function entryBinding(entry: Record<string, unknown>): string | undefined {
  const key = ENTRY_BINDING_KEYS.find((k) => entry[k] !== undefined && entry[k] !== null);
  return key === undefined ? undefined : stringOf(entry[key]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
