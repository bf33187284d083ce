// Many subscribers of one restaurant cost one read of each new comment, not one each: the row an
// event names is loaded once per event and instance (subscriptions/events/event-rows.ts). Each still gets
// its own result, with the fields it asked for. And the row is read as soon as the event arrives, not
// when a subscriber gets to it: events that arrive together are read together (issue 48).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { CountingBus, liveClient, subscribe, within, type LiveClient } from "../helpers/live.ts";

const SUBSCRIBERS = 20;
let s: TestServer;
let bus: CountingBus;
const clients: LiveClient[] = [];

beforeAll(async () => {
  bus = new CountingBus();
  s = await startServer({}, { events: bus });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await s?.close();
});

describe("fan-out", () => {
  it(`${SUBSCRIBERS} subscribers of one restaurant: one read of the new comment`, async () => {
    const owner = await s.signUp("fanowner");
    const r = await s.db.prisma.restaurant.create({ data: { title: "Fan", titleSearch: "fan", ownerId: owner.id } });
    const before = bus.listening;
    const subs = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const client = liveClient(s, { authorization: `Bearer ${owner.token}` });
      clients.push(client);
      subs.push(
        subscribe(client, `subscription($id: ID!) { commentAdded(restaurantId: $id) { id title } }`, { id: r.id }),
      );
    }
    await bus.untilListening(before + SUBSCRIBERS);
    s.sql.length = 0; // from here on: the write and what its event costs
    const added = await s.graphql(
      `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "Hello", body: "b", rating: 5 }) { id } }`,
      { id: r.id },
      owner.token,
    );
    expect(added.errors).toBeUndefined();
    const results = await within(Promise.all(subs.map((sub) => sub.next())), "every subscriber's event");
    for (const result of results)
      expect(result).toEqual({ data: { commentAdded: { id: added.data.addComment.id, title: "Hello" } } });
    // The write itself inserts the comment (and reads nothing back by id): every SELECT of a comment is an event's.
    const commentReads = s.sql.filter(
      (q) => /^\s*SELECT/i.test(q) && /FROM [`"](main|public)[`"]\.[`"]Comment[`"]/i.test(q),
    );
    // Prisma batches findUnique calls of one tick into `id IN (?, ?, ...)`: count the ids asked for, not statements.
    const idsAskedFor = (q: string) => /\bIN \(([^)]*)\)/i.exec(q)?.[1].split(",").length ?? 1;
    expect(
      commentReads.reduce((sum, q) => sum + idsAskedFor(q), 0),
      commentReads.join("\n"),
    ).toBe(1);
  });

  it("reads the rows of events that arrive together at once, not each after the one before was delivered", async () => {
    const owner = await s.signUp("aheadowner");
    const r = await s.db.prisma.restaurant.create({
      data: { title: "Ahead", titleSearch: "ahead", ownerId: owner.id },
    });
    const client = liveClient(s, { authorization: `Bearer ${owner.token}` });
    clients.push(client);
    const before = bus.listening;
    const sub = subscribe(client, `subscription($id: ID!) { commentAdded(restaurantId: $id) { title } }`, { id: r.id });
    await bus.untilListening(before + 1);
    const comments = [];
    for (const title of ["first", "second", "third"])
      comments.push(
        await s.db.prisma.comment.create({
          data: { title, body: "b", rating: 4, restaurantId: r.id, authorId: owner.id },
        }),
      );
    s.sql.length = 0;
    // Three events in one tick, as a NOTIFY batch or a Redis burst hands them over.
    for (const comment of comments) bus.publish({ topic: "commentAdded", restaurantId: r.id, commentId: comment.id });
    const titles = [];
    for (let i = 0; i < comments.length; i++) titles.push((await sub.next()).data?.commentAdded.title);
    expect(titles).toEqual(["first", "second", "third"]);
    const commentReads = s.sql.filter(
      (q) => /^\s*SELECT/i.test(q) && /FROM [`"](main|public)[`"]\.[`"]Comment[`"]/i.test(q),
    );
    // Read when the subscriber reached each event, they were three statements, one after another.
    expect(commentReads.length, commentReads.join("\n")).toBe(1);
  });
});
