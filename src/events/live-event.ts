// What the live-update path carries: ids only, never rows. Each subscriber loads what it may see
// after the event arrives, so the payload stays far below PostgreSQL's 8,000-byte NOTIFY limit
// and nothing one user may not read travels to another instance inside an event.
type Topics =
  | { topic: "commentAdded"; restaurantId: string; commentId: string }
  | { topic: "restaurantChanged"; restaurantId: string; change: "UPDATED" | "REMOVED" }
  | { topic: "orderPlaced"; restaurantId: string; orderId: string }
  | { topic: "reportFiled"; reportId: string }
  | { topic: "shoppingListChanged"; userId: string }
  // Sessions: every instance drops what it remembers of them (src/domain/accounts/session-cache.ts).
  /** One access token was revoked (logout); `sessionId` is its row id, never the token or its hash. */
  | { topic: "sessionRevoked"; userId: string; sessionId: string }
  /** Something every session of this user depends on changed: its role, or all its tokens were revoked. */
  | { topic: "userChanged"; userId: string };

/** Set by the bus when the event is published (ms since the epoch): receivers measure delivery lag with it. */
type Stamp = { publishedAt?: number };

export type LiveEvent = Topics & Stamp;

export type LiveTopic = LiveEvent["topic"];

/** The event of one topic. */
export type LiveEventOf<T extends LiveTopic> = Extract<LiveEvent, { topic: T }>;

/**
 * An event as listeners receive it: stamped by the bus with the time it was published (epoch ms),
 * so the delivery lag (publish to send) can be measured on any instance.
 */
export type PublishedEvent = LiveEvent & { publishedAt: number };

/** What each topic carries besides its name: ids (and one enum). Nothing else travels on a bus. */
const FIELDS: Record<LiveTopic, string[]> = {
  commentAdded: ["restaurantId", "commentId"],
  restaurantChanged: ["restaurantId", "change"],
  orderPlaced: ["restaurantId", "orderId"],
  reportFiled: ["reportId"],
  shoppingListChanged: ["userId"],
  sessionRevoked: ["userId", "sessionId"],
  userChanged: ["userId"],
};

/**
 * The event in what a bus received (a NOTIFY payload or a Redis message, parsed), keeping only
 * the known fields of a known topic; undefined when it is not one. Whoever can publish on a bus
 * can still name any ids: subscribers re-check the rows they load (resolvers/subscriptions.ts).
 */
export function liveEventFrom(value: unknown): LiveEvent | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const values = value as Record<string, unknown>;
  const topic = values.topic;
  if (typeof topic !== "string" || !Object.hasOwn(FIELDS, topic)) return undefined;
  const fields = FIELDS[topic as LiveTopic];
  if (!fields.every((field) => typeof values[field] === "string" && (values[field] as string).length <= 100))
    return undefined;
  if (topic === "restaurantChanged" && values.change !== "UPDATED" && values.change !== "REMOVED") return undefined;
  const stamp =
    typeof values.publishedAt === "number" && Number.isFinite(values.publishedAt)
      ? [["publishedAt", values.publishedAt]]
      : [];
  return Object.fromEntries([["topic", topic], ...fields.map((f) => [f, values[f]]), ...stamp]) as LiveEvent;
}
