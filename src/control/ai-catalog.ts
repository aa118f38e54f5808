/**
 * The public catalog as an AI Catalog document (`GET /.well-known/ai-catalog.json`, pure): the
 * draft discovery format A2A points multi-agent hosts at (a2aproject/A2A pull request #2240,
 * "prefer AI Catalog over well-known URI"). Field names are those of the AI Catalog
 * specification, Agent-Card/ai-catalog `specification/ai-catalog.md` (release v0.9.0,
 * `"specVersion": "0.9"`, https://ai-catalog.io/spec): §"Top-Level Structure" (`specVersion`,
 * `entries`, optional `host`), §"Host Info" and §"Catalog Entry" (`identifier`, `type`, exactly
 * one of `url` / `data`, optional `displayName`, `description`, `version`).
 *
 * Built from the same entries as the public `/agents` list (app.ts `publicCatalog`: only the
 * agents the caller may list, each with the card as served at the gateway), so it shows nothing
 * that list does not.
 */

/** The draft's media type, served as the Content-Type (§"Discovery": SHOULD). */
export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
/** The draft release this document follows (§"Producer Behavior": no higher than implemented). */
const SPEC_VERSION = '0.9';
/** §"Catalog Entry" `type`, the known type for an A2A Agent Card. */
const A2A_CARD_TYPE = 'application/a2a-agent-card+json';
/** Where clients fetch an agent's card under its URL at the gateway (A2A spec §8.2). */
const CARD_PATH = '.well-known/agent-card.json';

/** §"Host Info": who runs the catalog (`catalog.host` in the config). */
export interface CatalogHost {
  readonly displayName: string;
  readonly identifier?: string | undefined;
  readonly documentationUrl?: string | undefined;
  readonly logoUrl?: string | undefined;
}

/** What an entry is made from: a public catalog entry (`PublicAgentStatus`, src/cards/registry.ts). */
export interface ListedAgent {
  /** The agent's URL at the gateway, with its trailing slash. */
  readonly url: string;
  /** The card as served at the gateway (URLs rewritten); absent while it cannot be had. */
  readonly card?: Record<string, unknown>;
}

export interface CatalogEntry {
  identifier: string;
  type: string;
  url: string;
  displayName?: string;
  description?: string;
  version?: string;
}

export interface AiCatalog {
  specVersion: string;
  host?: CatalogHost;
  entries: CatalogEntry[];
}

/** An optional member left undefined (`host.logoUrl`, …) is dropped by JSON.stringify, not written. */
export function aiCatalog(agents: readonly ListedAgent[], host: CatalogHost | undefined): AiCatalog {
  return { specVersion: SPEC_VERSION, ...(host ? { host } : {}), entries: agents.map(entryOf) };
}

/**
 * One agent. `identifier` is its URL at the gateway without the trailing slash: an absolute URI
 * under the operator's control, as §"Catalog Projection" asks of an operator that is not the
 * agent's publisher (never `urn:air`), whose last segment is the agent's name — the draft's last
 * resort for a display name (§"Resolving an Artifact's Display Name"). An agent whose card
 * cannot be had is listed with these three members alone: its card URL is still where it will be.
 *
 * The draft says `displayName`, `description` and `version` SHOULD be left out when the card
 * carries them, lest they drift from it; here they are copied from the very card the entry's
 * `url` serves, at the same moment, so they cannot drift, and they let a client pick an agent
 * without fetching every card.
 */
function entryOf(agent: ListedAgent): CatalogEntry {
  const entry: CatalogEntry = {
    identifier: agent.url.replace(/\/$/, ''),
    type: A2A_CARD_TYPE,
    url: `${agent.url}${CARD_PATH}`,
  };
  const card = agent.card;
  if (typeof card?.['name'] === 'string') entry.displayName = card['name'];
  if (typeof card?.['description'] === 'string') entry.description = card['description'];
  if (typeof card?.['version'] === 'string') entry.version = card['version'];
  return entry;
}
