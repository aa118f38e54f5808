// Thin helpers over the SDKs' OWN clients, so tests drive agents (and later the gateway)
// exactly like real A2A callers do: card discovery from a base URL, then the transport the
// card offers.
//
// Card resolution (both SDKs, DefaultAgentCardResolver.resolve):
//   new URL(path ?? '.well-known/agent-card.json', baseUrl)
// i.e. WHATWG relative resolution against the base, so the trailing slash matters:
//   'http://gw/agents/reviewer/' -> http://gw/agents/reviewer/.well-known/agent-card.json
//   'http://gw/agents/reviewer'  -> http://gw/agents/.well-known/agent-card.json  (one level up!)
// Hosts without a path are unaffected ('http://h:1' and 'http://h:1/' both hit the root).
// These helpers pass the URL through untouched on purpose (that is what real clients do);
// use asBase() when you hold a slash-less base such as Peer.url.
//
// A2A-Version: the 1.3.0 client sends `A2A-Version: 1.0` on the card fetch and, on every call,
// the protocolVersion of the interface it picked ('1.0'; '0.3' when legacyCompat selected a 0.3
// interface). The 0.3.14 client sends no A2A-Version header at all (servers read that as 0.3).
import { randomUUID } from 'node:crypto';
import type { AgentInterface, Message } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import type { CallOptions } from '@grpc/grpc-js';
import type { Message as MessageV03, MessageSendParams, Part as PartV03 } from 'a2a-sdk-v03';
import {
  ClientFactory as ClientFactoryV03,
  ClientFactoryOptions as ClientFactoryOptionsV03,
  DefaultAgentCardResolver as DefaultAgentCardResolverV03,
  JsonRpcTransportFactory as JsonRpcTransportFactoryV03,
  RestTransportFactory as RestTransportFactoryV03,
  type Client as ClientV03,
} from 'a2a-sdk-v03/client';
import { sendRequest, textPart, userMessage } from '../../src/demo/v1-events.js';

/** 'GRPC' is for the 1.3.0 client only: the 0.3.14 factory has no gRPC transport and rejects it. */
export type TransportName = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** Options both SDKs' helpers take: the transport to prefer and, optionally, the `fetch` to use. */
export interface ClientOptions {
  transport: TransportName;
  /** The `fetch` the transports call with (e.g. one that adds credentials); default: the global one. */
  fetchImpl?: typeof fetch;
  /** The `fetch` the card resolver uses; default: the global one (a public card needs no credential). */
  cardFetchImpl?: typeof fetch;
}

export interface ClientV1Options extends ClientOptions {
  /**
   * Turn on the 1.3.0 client's v0.3 compat layer: 0.3 cards are translated and a 0.3
   * interface gets the legacy transport (0.3 wire shapes, A2A-Version: 0.3).
   */
  legacyCompat?: boolean;
  /** Call options for every gRPC call (e.g. a deadline); the channel is always insecure. */
  grpcCallOptions?: Partial<CallOptions>;
  /**
   * Keep only the card's interfaces at this protocolVersion. The 1.3.0 factory picks the
   * 1.0 entry of a binding whenever the card has one (ClientFactory.createFromNormalizedAgentCard),
   * so this is how a test makes it take a compat peer's '0.3' interface.
   */
  onlyProtocolVersion?: string;
  /** Dial this `host:port` instead of the card's GRPC addresses (e.g. a recording proxy). */
  grpcUrl?: string;
}

/** A 1.3.0 (A2A 1.0) client for the agent whose card lives under `baseUrl`. */
export async function clientV1(baseUrl: string, opts: ClientV1Options): Promise<Client> {
  const legacyCompat = opts.legacyCompat ? { legacyCompat: { enabled: true } } : {};
  const transport = { ...legacyCompat, ...(opts.fetchImpl ? { fetchImpl: opts.fetchImpl } : {}) };
  const grpc = { ...legacyCompat, ...(opts.grpcCallOptions ? { grpcCallOptions: opts.grpcCallOptions } : {}) };
  const resolver = new DefaultAgentCardResolver({
    ...legacyCompat,
    ...(opts.cardFetchImpl ? { fetchImpl: opts.cardFetchImpl } : {}),
  });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      preferredTransports: [opts.transport],
      transports: [
        new JsonRpcTransportFactory(transport),
        new RestTransportFactory(transport),
        new GrpcTransportFactory(grpc),
      ],
      cardResolver: resolver,
    }),
  );
  if (opts.onlyProtocolVersion === undefined && opts.grpcUrl === undefined) return factory.createFromUrl(baseUrl);
  const card = await resolver.resolve(baseUrl);
  return factory.createFromAgentCard({
    ...card,
    supportedInterfaces: rewriteInterfaces(card.supportedInterfaces, opts),
  });
}

function rewriteInterfaces(list: AgentInterface[], opts: ClientV1Options): AgentInterface[] {
  const { onlyProtocolVersion: only, grpcUrl } = opts;
  return list
    .filter((i) => only === undefined || i.protocolVersion === only)
    .map((i) => (grpcUrl && i.protocolBinding === 'GRPC' ? { ...i, url: grpcUrl } : i));
}

/** A 0.3.14 (A2A 0.3) client for the agent whose card lives under `baseUrl`. */
export function clientV03(baseUrl: string, opts: ClientOptions): Promise<ClientV03> {
  const transport = opts.fetchImpl ? { fetchImpl: opts.fetchImpl } : {};
  const factory = new ClientFactoryV03(
    ClientFactoryOptionsV03.createFrom(ClientFactoryOptionsV03.default, {
      preferredTransports: [opts.transport],
      transports: [new JsonRpcTransportFactoryV03(transport), new RestTransportFactoryV03(transport)],
      cardResolver: new DefaultAgentCardResolverV03(opts.cardFetchImpl ? { fetchImpl: opts.cardFetchImpl } : {}),
    }),
  );
  return factory.createFromUrl(baseUrl);
}

/** `url` with exactly one trailing slash, so '.well-known/...' resolves beneath it. */
export function asBase(url: string): string {
  return url.replace(/\/*$/, '/');
}

export interface UserMessageOptions {
  /** Continue this task (e.g. answer INPUT_REQUIRED). */
  taskId?: string;
  contextId?: string;
  /** Media type of the text part (default text/plain). */
  mediaType?: string;
}

/** A 1.0 user message with one text part. */
export function userMessageV1(text: string, opts: UserMessageOptions = {}): Message {
  return userMessage([textPart(text, opts.mediaType)], opts);
}

/** A 1.0 SendMessageRequest; returnImmediately defaults to false (blocking), as in the spec. */
export const sendRequestV1 = sendRequest;

/** A 0.3 user message with one text part (0.3 text parts carry no media type). */
export function userMessageV03(text: string, opts: Omit<UserMessageOptions, 'mediaType'> = {}): MessageV03 {
  const part: PartV03 = { kind: 'text', text };
  return {
    kind: 'message',
    messageId: randomUUID(),
    role: 'user',
    parts: [part],
    ...(opts.taskId ? { taskId: opts.taskId } : {}),
    ...(opts.contextId ? { contextId: opts.contextId } : {}),
  };
}

/** 0.3 MessageSendParams; `blocking: false` is 0.3's spelling of returnImmediately. */
export function sendParamsV03(message: MessageV03, config: { blocking?: boolean } = {}): MessageSendParams {
  return {
    message,
    configuration: {
      acceptedOutputModes: ['text/plain'],
      ...(config.blocking === undefined ? {} : { blocking: config.blocking }),
    },
  };
}
