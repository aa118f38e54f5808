// The per-component table of bench/RESULTS.md "Light streams": the growth per stream of a heap
// snapshot's self sizes between two snapshots of bench/stream-memory.mjs (KEEP_SNAPSHOTS=1 keeps
// them), each node given to the first named owner on its retainer path.
//
//   node --max-old-space-size=4000 bench/heap-components.mjs before.heapsnapshot after.heapsnapshot N
import { readFileSync } from 'node:fs';
const COMPONENTS = [
  [
    'sockets (both sides): net.Socket, TCP handle, stream states, listeners',
    /^(object:Socket|object:TCP|synthetic:Node \/ TCPSocketWrap|object:WritableState|object:ReadableState|object:BufferList|closure:socketListenerWrap|object:Object .?_peername)$/,
  ],
  [
    'node:http client side: IncomingMessage, ServerResponse (header string), HTTPParser',
    /^(object:IncomingMessage|object:ServerResponse|object:HTTPParser|object:HTTPServerAsyncResource|object:OutgoingMessage)$/,
  ],
  [
    'undici upstream side: Client (one per pooled connection), Request, Parser, handler adapter, timers',
    /^(object:Client|object:Request|object:Parser|object:UnwrapController|object:UnwrapHandler|object:FastTimer|object:RequestHandler|object:WeakRef)$/,
  ],
  ['Relay (forward.ts): object, closures, done Promise', /^(object:Relay|object:Promise)$/],
  [
    'SseKeepalive and its timer (a setInterval per stream before)',
    /^(object:SseKeepalive|object:Timeout|object:TimersList)$/,
  ],
  ['Exchange, record, request facts', /^(object:Exchange|object:ExchangeRecord)$/],
  [
    'inspector: SSE decoder and stream machine (src/codec/sse.ts, src/a2a/stream.ts)',
    /^(object:SseResponseDecoder|object:Decoder|object:Machine|object:StreamInspection|object:EventHeadReader|object:ByteCarry|object:DecodedEvent)$/,
  ],
  ['pipeline.ts async frame (awaiting forward)', /^(object:Generator)$/],
];
function load(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const m = snap.snapshot.meta;
  const NF = m.node_fields.length,
    EF = m.edge_fields.length;
  const iT = m.node_fields.indexOf('type'),
    iN = m.node_fields.indexOf('name'),
    iS = m.node_fields.indexOf('self_size'),
    iE = m.node_fields.indexOf('edge_count');
  const eT = m.edge_fields.indexOf('type'),
    eTo = m.edge_fields.indexOf('to_node');
  const nTypes = m.node_types[iT],
    eTypes = m.edge_types[eT];
  const { nodes, edges, strings } = snap;
  const count = nodes.length / NF;
  const ret = new Int32Array(count).fill(-1);
  let e = 0;
  for (let n = 0; n < count; n++) {
    const ec = nodes[n * NF + iE];
    for (let k = 0; k < ec; k++, e += EF) {
      const et = eTypes[edges[e + eT]];
      if (et === 'weak' || et === 'shortcut') continue;
      const to = edges[e + eTo] / NF;
      if (ret[to] === -1) ret[to] = n;
    }
  }
  const name = (n) => {
    const t = nTypes[nodes[n * NF + iT]];
    return t.includes('string') ? `(${t})` : `${t}:${strings[nodes[n * NF + iN]]}`;
  };
  const generic =
    /^(array:|hidden:|object:system \/ Context|closure:|object:Object|object:Array|object:Buffer|object:ArrayBuffer|object:Uint8Array|\(|native:system|number:|object:Map|object:Set|object:WritableState|object:ReadableState)/;
  const out = new Map();
  for (let n = 0; n < count; n++) {
    let owner = n;
    for (let d = 0; d < 30; d++) {
      const on = name(owner);
      if (COMPONENTS.some(([, re]) => re.test(on)) && !(d > 0 && /State$/.test(on))) break;
      if (generic.test(on) && ret[owner] >= 0) owner = ret[owner];
      else break;
    }
    const on = name(owner);
    const comp = COMPONENTS.find(([, re]) => re.test(on))?.[0] ?? 'other';
    out.set(comp, (out.get(comp) ?? 0) + nodes[n * NF + iS]);
  }
  return out;
}
const [a, b, N] = [load(process.argv[2]), load(process.argv[3]), Number(process.argv[4])];
const res = {};
let total = 0;
for (const [c] of [...COMPONENTS, ['other']]) {
  const d = ((b.get(c) ?? 0) - (a.get(c) ?? 0)) / N;
  res[c] = Math.round(d);
  total += d;
}
res.total = Math.round(total);
console.log(JSON.stringify(res, null, 1));
