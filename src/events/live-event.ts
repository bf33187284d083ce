// What the live-update path carries: ids only, never rows. Each subscriber loads what it may see
// after the event arrives, so the payload stays far below PostgreSQL's 8,000-byte NOTIFY limit
// and nothing one user may not read travels to another instance inside an event.
export type LiveEvent =
  | { topic: "commentAdded"; restaurantId: string; commentId: string }
  | { topic: "restaurantChanged"; restaurantId: string; change: "UPDATED" | "REMOVED" }
  | { topic: "orderPlaced"; restaurantId: string; orderId: string }
  | { topic: "reportFiled"; reportId: string }
  | { topic: "shoppingListChanged"; userId: string };

export type LiveTopic = LiveEvent["topic"];

/** The event of one topic. */
export type LiveEventOf<T extends LiveTopic> = Extract<LiveEvent, { topic: T }>;

/**
 * An event as listeners receive it: stamped by the bus with the time it was published (epoch ms),
 * so the delivery lag (publish to send) can be measured on any instance.
 */
export type PublishedEvent = LiveEvent & { publishedAt: number };
