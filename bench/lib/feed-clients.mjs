// Live console feeds for the `gateway+console` variant (issue #15): N clients on the admin
// listener's `/console/api/feed` (src/console/feed.ts), opened with node:http once the gateway is
// up and reading everything until the gateway is stopped, so the run measures the gateway while
// it writes every exchange to N consoles. A client the gateway drops (too slow) is counted, not
// reopened: a dropped console would make the row look cheaper than it is, so the probe says so.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** Opens `count` feeds at `url`; resolves once every one answered 200 (rejects otherwise). */
export async function openFeeds(url, count) {
  const feeds = { requests: [], bytes: 0, events: 0, ended: 0 };
  const opened = [];
  for (let i = 0; i < count; i++) opened.push(openOne(url, feeds));
  await Promise.all(opened);
  return {
    stats: () => ({ clients: count, bytes: feeds.bytes, events: feeds.events, ended: feeds.ended }),
    close: () => {
      for (const req of feeds.requests) req.destroy();
    },
  };
}

function openOne(url, feeds) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`feed answered HTTP ${res.statusCode}`));
        return;
      }
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        feeds.bytes += chunk.length;
        // Count `event: exchange` lines, also when one is split across chunks.
        const text = tail + chunk;
        feeds.events += text.split('event: exchange\n').length - 1;
        tail = text.slice(-20);
      });
      res.on('end', () => feeds.ended++);
      res.on('error', () => {});
      resolve();
    });
    req.on('error', (err) => (feeds.requests.includes(req) ? undefined : reject(err)));
    feeds.requests.push(req);
  });
}

/** The variant's probe: every feed must have seen the verification's exchanges and none be dropped. */
export async function checkFeeds(feeds) {
  if (!feeds) throw new Error('no console feeds open');
  const deadline = Date.now() + 4000;
  while (feeds.stats().events < feeds.stats().clients && Date.now() < deadline) await sleep(100);
  const s = feeds.stats();
  if (s.events === 0) throw new Error('the console feeds received no exchange (console not in this build?)');
  if (s.ended > 0) throw new Error(`${s.ended} of ${s.clients} console feeds were closed by the gateway`);
}
