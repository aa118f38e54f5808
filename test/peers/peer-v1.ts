// A real @a2a-js/sdk 1.3.0 agent on loopback, behaving like the agent in the captures.
import type { AgentCard } from '@a2a-js/sdk';
import { hostAgent, type CardTemplate } from '../../src/demo/host.js';
import { PeerV1Executor } from './peer-v1-agent.js';
import { startGrpcHost, type GrpcHost } from './peer-grpc.js';
import { PEER_SKILL, recordRequests, type Peer, type PeerOptions, type RecordedRequest } from './peer-common.js';

export interface PeerV1Options extends PeerOptions {
  /** Enable the SDK's v0.3 compatibility layer (hybrid card with Vary: A2A-Version, 0.3 routes). */
  compatV03?: boolean;
  /**
   * Also serve the gRPC binding (Peer.grpcUrl) on the same request handler; the card lists
   * it after the HTTP ones (and at 0.3 too with compatV03). gRPC calls land in `requests`.
   */
  grpc?: boolean;
}

/** A peer-v1 peer; `card` is the object the SDK serves (a test may add `signatures` to it). */
export interface PeerV1 extends Peer {
  card: AgentCard;
}

export async function startPeerV1(opts: PeerV1Options = {}): Promise<PeerV1> {
  const requests: RecordedRequest[] = [];
  const executor = new PeerV1Executor({ stepMs: opts.stepMs ?? 150, slowMs: opts.slowMs ?? 8000 });
  const grpc = opts.grpc ? await startGrpcHost(requests) : undefined;
  const hosted = await hostAgent({
    prefix: opts.prefix,
    port: opts.port,
    card: peerCard(opts.streaming ?? true),
    executor,
    compatV03: opts.compatV03,
    extendedCard: opts.extendedCard ? extendCard : undefined,
    middleware: [recordRequests(requests)],
    onClose: () => executor.runs.abortAll(),
    extraInterfaces: grpc ? [grpc.iface] : [],
  });
  grpc?.serve(hosted.requestHandler, opts.compatV03 === true);
  return {
    url: hosted.url,
    port: hosted.port,
    grpcUrl: grpc?.url,
    card: hosted.card,
    requests,
    close: closeBoth(hosted, grpc),
  };
}

function closeBoth(hosted: { close(): Promise<void> }, grpc: GrpcHost | undefined): () => Promise<void> {
  return async () => {
    await Promise.all([hosted.close(), grpc?.close()]);
  };
}

function peerCard(streaming: boolean): CardTemplate {
  return {
    name: 'a2a-js peer (SDK 1.3.0)',
    description:
      'Test peer built on @a2a-js/sdk 1.3.0: direct message for questions, tasks with chunked artifacts otherwise.',
    provider: { organization: 'peer-test', url: 'https://example.invalid' },
    version: '1.0.0',
    capabilities: { streaming, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        ...PEER_SKILL,
        tags: [...PEER_SKILL.tags],
        examples: [...PEER_SKILL.examples],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** The extended card differs visibly from the public one so tests can tell them apart. */
function extendCard<C extends { name: string; skills: CardTemplate['skills'] }>(card: C): C {
  return {
    ...card,
    name: `${card.name} (extended)`,
    skills: [
      ...card.skills,
      {
        id: 'extended-only',
        name: 'Extended only',
        description: 'Only listed on the extended card.',
        tags: ['test'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
  };
}
