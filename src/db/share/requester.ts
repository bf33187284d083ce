// Who a database read is for: a client (an account when signed in, else an address), set by the
// GraphQL layer around each operation it runs. The searches' readers are few (SQLite's threads,
// PostgreSQL's search pool) and a search can hold one for seconds: they are shared between clients
// by it (fair-share.ts), so one client cannot keep every reader busy while others wait. Ambient,
// like a trace context, so that the domain's signatures need not carry it.
import { AsyncLocalStorage } from "node:async_hooks";

const requester = new AsyncLocalStorage<string>();

/** Runs `work` with its database reads counted against `client`. */
export const asRequester = <T>(client: string, work: () => T): T => requester.run(client, work);

/** The client the current read is for ("" when none was set: start-up tasks, the command line). */
export const currentRequester = (): string => requester.getStore() ?? "";
