/** Context owners in the in-memory task store: first caller wins, bounded like the stories. */
import { describe, expect, it } from 'vitest';
import { InMemoryTaskStore } from '../../src/tasks/memory-store.js';
import { refusedContext } from '../../src/access/ownership.js';
import type { RequestFacts } from '../../src/a2a/request.js';

describe('context owners', () => {
  const ownerOf = async (store: InMemoryTaskStore, agent: string, id: string) =>
    (await store.contextOwnersOf(agent, [id])).get(id);

  it('the first caller a context came back to owns it; later claims change nothing', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 10, ttlMs: 60_000 });
    const now = Date.now();
    store.claimContext('a', 'ctx-1', 'alice', now);
    store.claimContext('a', 'ctx-1', 'bob', now + 1);
    expect(await ownerOf(store, 'a', 'ctx-1')).toBe('alice');
    expect(await ownerOf(store, 'b', 'ctx-1')).toBeUndefined(); // per agent
  });

  it('holds at most maxTasks contexts, the least recently seen forgotten first', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 3, ttlMs: 60_000 });
    const now = Date.now();
    for (let i = 0; i < 5; i++) store.claimContext('a', `ctx-${i}`, 'alice', now + i);
    const owners = await store.contextOwnersOf('a', ['ctx-0', 'ctx-1', 'ctx-2', 'ctx-3', 'ctx-4']);
    expect([...owners.values()]).toEqual([undefined, undefined, 'alice', 'alice', 'alice']);
  });

  it('refusedContext names a context owned by someone else, in either spelling the message used', () => {
    const owners: Record<string, string> = { mine: 'bob', hers: 'alice' };
    const facts = (contextIds: string[]) => ({ contextIds }) as unknown as RequestFacts;
    const ownerOf = (id: string) => owners[id];
    expect(refusedContext(facts(['mine']), 'bob', ownerOf, false)).toBeUndefined();
    expect(refusedContext(facts(['mine', 'hers']), 'bob', ownerOf, false)).toBe('hers');
    expect(refusedContext(facts(['mine', 'hers']), 'bob', ownerOf, true)).toBe('hers');
    expect(refusedContext(facts([]), 'bob', ownerOf, false)).toBeUndefined();
    expect(refusedContext({} as RequestFacts, 'bob', ownerOf, false)).toBeUndefined();
  });

  it('refusedContext refuses a context nobody owns (never seen or forgotten) unless client context ids are accepted', () => {
    const owners: Record<string, string> = { mine: 'bob' };
    const facts = (contextIds: string[]) => ({ contextIds }) as unknown as RequestFacts;
    const ownerOf = (id: string) => owners[id];
    expect(refusedContext(facts(['mine', 'new']), 'bob', ownerOf, false)).toBe('new');
    expect(refusedContext(facts(['mine', 'new']), 'bob', ownerOf, true)).toBeUndefined();
  });
});
