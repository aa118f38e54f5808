/**
 * The Lua scripts that keep task stories in Redis. Each runs atomically in Redis, so a task's
 * transition is recorded once however many replicas saw it, and only the replica whose script
 * recorded it gets the event (and observes the task histograms): the exactly-once rule of the
 * docs/deploying.md "Scaling out". The story rule is src/tasks/story.ts `advanceStory`, written again in
 * Lua; test/state/redis-store.test.ts runs both on the same sightings and compares.
 *
 * Keys (P = `state.redis.keyPrefix`; agent names hold no `:`, src/config/schema.ts AGENT_NAME):
 *   P task:{agent}:{taskId}    hash: `story` (JSON), `owner`
 *   P tasks                    sorted set of `{agent}:{taskId}` by last seen (capacity and TTL)
 *   P state:{agent}:{state}    sorted set of task ids by the time they entered that state (census)
 *   P ctx:{agent}:{contextId}  the context's owner, expiring after `tasks.ttl`
 *   P contexts                 sorted set of `{agent}:{contextId}` by last seen (capacity)
 *   P census-leader            the replica that exports the task gauges
 *   P confirm:{agent}:{taskId} until when the task is held for one replica to confirm (src/confirm/confirm.ts)
 * Keys are made inside the scripts, so this needs one Redis (standalone or Sentinel), not Redis Cluster.
 */
import { TASK_STATES, isInterrupted, isTerminal } from '../a2a/task-state.js';
import { AGENT_CLOCK_SKEW_MS } from '../tasks/agent-time.js';

const luaSet = (states: readonly string[]) => `{${states.map((s) => `['${s}']=true`).join(',')}}`;

/** The state tables, from the same definitions the in-memory store uses (src/a2a/task-state.ts). */
const PRELUDE = `
local TERMINAL = ${luaSet(TASK_STATES.filter((s) => isTerminal(s)))}
local INTERRUPTED = ${luaSet(TASK_STATES.filter((s) => isInterrupted(s)))}
local STATES = {${TASK_STATES.map((s) => `'${s}'`).join(',')}}
local SKEW = ${AGENT_CLOCK_SKEW_MS}

-- When a state visit starts: the agent's status.timestamp when sane (src/tasks/agent-time.ts
-- stateStartedAt), else the observation time; never before the previous visit.
local function startedAt(agentAt, observedAt, firstSeen, previousAt)
  local at = observedAt
  if agentAt and agentAt <= observedAt + SKEW and agentAt >= firstSeen - SKEW then at = agentAt end
  if previousAt and at < previousAt then at = previousAt end
  return at
end

-- Forgets the least recently seen tasks past capacity or TTL (at most 100 per call, so a script
-- stays short); the unfinished ones are returned as evicted.
local function evictTasks(P, now, max, ttl, evicted)
  local z = P .. 'tasks'
  for _ = 1, 100 do
    local oldest = redis.call('ZRANGE', z, 0, 0, 'WITHSCORES')
    if #oldest == 0 then return end
    if redis.call('ZCARD', z) <= max and now - tonumber(oldest[2]) < ttl then return end
    redis.call('ZREM', z, oldest[1])
    local key = P .. 'task:' .. oldest[1]
    local raw = redis.call('HGET', key, 'story')
    redis.call('DEL', key)
    if raw then
      local story = cjson.decode(raw)
      local n = #story.states
      if n > 0 then redis.call('ZREM', P .. 'state:' .. story.agent .. ':' .. story.states[n].state, story.taskId) end
      if story.durationMs == nil then table.insert(evicted, story) end
    end
  end
end
`;

/** Records one sighting; returns its reply: the owner, whether the story has settled, what changed, and the story if anything did. */
const OBSERVE_ONE = `
local function observe(P, agent, taskId, state, seenAt, ctx, principal, shown, agentAt, tenant)
  local key = P .. 'task:' .. agent .. ':' .. taskId
  local raw = redis.call('HGET', key, 'story')
  local story
  if raw then
    story = cjson.decode(raw)
  else
    story = { agent = agent, taskId = taskId, firstSeen = seenAt, lastSeen = seenAt, states = {}, interruptedMs = {} }
    if ctx ~= '' then story.contextId = ctx end
    if tenant ~= '' then story.tenant = tenant end
    if principal ~= '' then redis.call('HSET', key, 'owner', principal) end
  end
  if seenAt > story.lastSeen then story.lastSeen = seenAt end
  local events = {}
  local n = #story.states
  local current = nil
  local previousAt = nil
  if n > 0 then current, previousAt = story.states[n].state, story.states[n].at end
  local at = startedAt(agentAt, seenAt, story.firstSeen, previousAt)
  -- A shown sighting of the current state makes it shown, also after terminal (no event).
  if state ~= '' and state == current and shown and story.states[n].shown == false then story.states[n].shown = true end
  if state ~= '' and state ~= current and story.durationMs == nil then
    table.insert(story.states, { state = state, at = at, shown = shown })
    table.insert(events, { type = 'state', from = current, to = state })
    if current then redis.call('ZREM', P .. 'state:' .. agent .. ':' .. current, taskId) end
    redis.call('ZADD', P .. 'state:' .. agent .. ':' .. state, at, taskId)
    if current and INTERRUPTED[current] then
      local ms = math.max(0, at - story.states[n].at)
      story.interruptedMs[current] = (story.interruptedMs[current] or 0) + ms
      table.insert(events, { type = 'resumed', state = current, ms = ms })
    end
    if TERMINAL[state] then
      story.durationMs = math.max(0, at - math.min(story.firstSeen, story.states[1].at))
      table.insert(events, { type = 'settled', state = state, durationMs = story.durationMs })
    end
  end
  redis.call('HSET', key, 'story', cjson.encode(story))
  redis.call('ZADD', P .. 'tasks', story.lastSeen, agent .. ':' .. taskId)
  local reply = { owner = redis.call('HGET', key, 'owner'), settled = story.durationMs ~= nil }
  -- Whether the last visit is shown (a stored story without the field is: it predates hidden visits).
  local m = #story.states
  reply.lastShown = m > 0 and story.states[m].shown ~= false
  if #events > 0 then
    reply.events = events
    reply.story = story
  end
  return reply
end
`;

/** Claims a context for its first caller; returns the owner. */
const CLAIM_ONE = `
local function claim(P, agent, ctx, principal, at, max, ttl)
  local member = agent .. ':' .. ctx
  local key = P .. 'ctx:' .. member
  redis.call('SET', key, principal, 'NX')
  redis.call('PEXPIRE', key, ttl)
  local z = P .. 'contexts'
  local seen = redis.call('ZSCORE', z, member)
  if not seen or tonumber(seen) < at then redis.call('ZADD', z, at, member) end
  for _ = 1, 100 do
    local oldest = redis.call('ZRANGE', z, 0, 0, 'WITHSCORES')
    if #oldest == 0 then break end
    if redis.call('ZCARD', z) <= max and at - tonumber(oldest[2]) < ttl then break end
    redis.call('ZREM', z, oldest[1])
    redis.call('DEL', P .. 'ctx:' .. oldest[1])
  end
  return redis.call('GET', key)
end
`;

/**
 * A batch of writes in one call (src/state/write-queue.ts). ARGV: prefix, maxTracked, ttlMs, then
 * per write either `o, agent, taskId, state ('' for none), at, contextId (''), principal (''),
 * shown ('1' or '0'), agentAt ('' for none), tenant ('')` (a task sighting) or `c, agent, contextId, principal, at` (a context claim). Returns one reply per
 * write — a sighting's as JSON, a claim's owner — then the tasks the batch evicted, as JSON.
 */
export const WRITE = `${PRELUDE}${OBSERVE_ONE}${CLAIM_ONE}
local P, max, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local replies = {}
local latest = nil
local i = 4
while i <= #ARGV do
  if ARGV[i] == 'o' then
    local at = tonumber(ARGV[i + 4])
    if not latest or at > latest then latest = at end
    local shown = ARGV[i + 7] == '1'
    local agentAt = tonumber(ARGV[i + 8])
    table.insert(replies, cjson.encode(observe(P, ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], at, ARGV[i + 5], ARGV[i + 6], shown, agentAt, ARGV[i + 9])))
    i = i + 10
  else
    table.insert(replies, claim(P, ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], tonumber(ARGV[i + 4]), max, ttl) or '')
    i = i + 5
  end
end
local evicted = {}
if latest then evictTasks(P, latest, max, ttl, evicted) end
table.insert(replies, cjson.encode(evicted))
return replies
`;

/**
 * ARGV: prefix, replica id, lease ms, now, maxTracked, ttlMs, agents (JSON array), purpose,
 * unobservedAfter ms. An unfinished task whose last sighting is that old counts as unobserved,
 * not towards its state's oldest (src/tasks/story.ts `countStory`): this walks the unfinished
 * tasks, one ZSCORE each, at scrape time. For
 * the gauges, nil unless this replica holds (or takes) the census lease; for a `view`, no lease.
 * Then forgets expired tasks and counts the rest.
 */
export const CENSUS = `${PRELUDE}
local P, me, lease = ARGV[1], ARGV[2], ARGV[3]
local now, max, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local after = tonumber(ARGV[9])
if ARGV[8] ~= 'view' then
  local lk = P .. 'census-leader'
  local holder = redis.call('GET', lk)
  if holder and holder ~= me then return false end
  redis.call('SET', lk, me, 'PX', lease)
end
local evicted = {}
evictTasks(P, now, max, ttl, evicted)
local census = {}
for _, agent in ipairs(cjson.decode(ARGV[7])) do
  local perAgent = {}
  for _, state in ipairs(STATES) do
    local z = P .. 'state:' .. agent .. ':' .. state
    local count = redis.call('ZCARD', z)
    if count > 0 then
      local entry = { count = count }
      if not TERMINAL[state] then
        local members = redis.call('ZRANGE', z, 0, -1, 'WITHSCORES')
        local unobserved = 0
        for j = 1, #members, 2 do
          local seen = redis.call('ZSCORE', P .. 'tasks', agent .. ':' .. members[j])
          if seen and now - tonumber(seen) >= after then
            unobserved = unobserved + 1
          elseif entry.oldestSince == nil then
            entry.oldestSince = tonumber(members[j + 1])
          end
        end
        if unobserved > 0 then entry.unobserved = unobserved end
      end
      perAgent[state] = entry
    end
  end
  census[agent] = perAgent
end
return cjson.encode({ census = census, evicted = evicted })
`;

/**
 * ARGV: prefix, agent, taskId, refusal (JSON), max. Appends a refused call to a tracked task's
 * story (src/tasks/refusal.ts `addRefusal`, the latest `max` kept); an untracked id gets nothing.
 * Neither the story's state nor its last sighting moves.
 */
export const REFUSE = `
local key = ARGV[1] .. 'task:' .. ARGV[2] .. ':' .. ARGV[3]
local raw = redis.call('HGET', key, 'story')
if not raw then return 0 end
local story = cjson.decode(raw)
local refused = story.refused or {}
table.insert(refused, cjson.decode(ARGV[4]))
while #refused > tonumber(ARGV[5]) do table.remove(refused, 1) end
story.refused = refused
redis.call('HSET', key, 'story', cjson.encode(story))
return 1
`;

/**
 * ARGV: prefix, agent, now, unobservedAfter ms, limit, scan. Picks up to `limit` unfinished
 * tasks of the agent whose last sighting is `unobservedAfter` old (src/tasks/memory-store.ts
 * `pickUnobserved`), each held until `now + unobservedAfter` by `P confirm:{agent}:{taskId}`, so no
 * other replica picks it meanwhile. The hold is the time in the key, on the clock the scripts are
 * given (as every time here); its PX only lets Redis forget it. Candidates
 * come from each unfinished state's set, those that entered it earliest first (a task's last
 * sighting is never before it entered its state), at most `scan` per state. Returns a flat list
 * of task id, state, tenant ('' for none).
 */
export const PICK = `${PRELUDE}
local P, agent = ARGV[1], ARGV[2]
local now, after, limit, scan = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local before = now - after
local picked = {}
for _, state in ipairs(STATES) do
  if not TERMINAL[state] then
    local ids = redis.call('ZRANGEBYSCORE', P .. 'state:' .. agent .. ':' .. state, '-inf', before, 'LIMIT', 0, scan)
    for _, id in ipairs(ids) do
      if #picked >= 3 * limit then return picked end
      local member = agent .. ':' .. id
      local seen = redis.call('ZSCORE', P .. 'tasks', member)
      local hold = P .. 'confirm:' .. member
      local held = redis.call('GET', hold)
      if seen and tonumber(seen) <= before and not (held and tonumber(held) > now) then
        redis.call('SET', hold, now + after, 'PX', after)
        local raw = redis.call('HGET', P .. 'task:' .. member, 'story')
        local tenant = raw and cjson.decode(raw).tenant or ''
        table.insert(picked, id)
        table.insert(picked, state)
        table.insert(picked, tenant)
      end
    end
  end
end
return picked
`;
