// One bounded GET of a JSON document from the identity provider (its discovery document, its
// keys): the whole exchange within `timeoutMs`, at most `maxBytes` read however much the provider
// sends, no redirect followed. Every failure is a ProviderFetchError whose message says what went
// wrong and where, for the log and /readyz (an address's user and password are never shown).

export class ProviderFetchError extends Error {
  override name = "ProviderFetchError";
}

export type FetchLimits = { timeoutMs: number; maxBytes: number };

/** The address without its user and password, its query or fragment. */
export function shownAddress(url: string): string {
  const shown = new URL(url);
  shown.username = "";
  shown.password = "";
  shown.search = "";
  shown.hash = "";
  return shown.toString();
}

/** Why a fetch failed, in a few words: the socket's error code when there is one. */
function failure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === "string") return `unreachable (${cause.code})`;
  return `unreachable (${error instanceof Error ? error.message : String(error)})`;
}

async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length"));
  if (declared > maxBytes) throw new ProviderFetchError(`larger than ${maxBytes} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ProviderFetchError(`larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export async function fetchJson(url: string, { timeoutMs, maxBytes }: FetchLimits): Promise<unknown> {
  const where = `GET ${shownAddress(url)}`;
  const signal = AbortSignal.timeout(timeoutMs);
  let body: Buffer;
  try {
    const response = await fetch(url, { signal, redirect: "manual", headers: { accept: "application/json" } });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get("location");
      throw new ProviderFetchError(
        `answered ${response.status}${location ? ` (a redirect: give the final address)` : ""}`,
      );
    }
    body = await readCapped(response, maxBytes);
  } catch (error) {
    throw new ProviderFetchError(
      `${where}: ${error instanceof ProviderFetchError ? error.message : failure(error, timeoutMs)}`,
    );
  }
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new ProviderFetchError(`${where}: the answer is not JSON`);
  }
}
