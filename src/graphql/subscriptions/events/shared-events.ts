// Subscribers that ask the same thing (the same document, operation, variables and viewer) get
// the same answer to an event: it is executed and serialised once and every one of them is sent
// that text. Without this, one comment on a restaurant followed by 100 identical subscriptions
// of a heavy selection ran 100 executions. Only subscribers that take the event together share
// it: an answer is kept SHARE_WINDOW_MS after it is ready, so a subscriber that fell behind and
// reaches the event later runs it again itself (at its own pace) rather than the server keeping
// answers for it.
import { createHash } from "node:crypto";
import type { Viewer } from "../../../domain/accounts/tokens.ts";

export const SHARE_WINDOW_MS = 1_000;

const answers = new WeakMap<object, Map<string, Promise<string | null>>>();

/** The answer to `event` for subscribers of `key`: run once by the first to ask while it is fresh. */
export function sharedAnswer(event: object, key: string, run: () => Promise<string | null>): Promise<string | null> {
  let byKey = answers.get(event);
  if (!byKey) answers.set(event, (byKey = new Map()));
  let answer = byKey.get(key);
  if (!answer) {
    answer = run();
    byKey.set(key, answer);
    const forget = () => void setTimeout(() => byKey.delete(key), SHARE_WINDOW_MS).unref();
    answer.then(forget, forget);
  }
  return answer;
}

/** What makes two subscriptions' answers the same: everything a resolver may read that differs between them. */
export function shareKey(
  query: string,
  operationName: string | undefined,
  variables: Record<string, unknown> | undefined,
  viewer: Viewer | null,
): string {
  const asked = createHash("sha256")
    .update(query)
    .update("\0")
    .update(operationName ?? "")
    .update("\0")
    .update(JSON.stringify(variables ?? {}))
    .digest("base64url");
  return `${asked}:${viewer ? `${viewer.id}:${viewer.role}` : "anonymous"}`;
}
