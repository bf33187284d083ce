// A TCP relay in front of a server (an S3 store in the tests) that can hold every byte back for a
// while: a slow store, seen from the service, without changing the store itself.
import { createConnection, createServer, type Socket } from "node:net";

export type SlowProxy = {
  endpoint: string;
  /** Each chunk, either way, is passed on this long after it arrived (0: at once). */
  delayMs: number;
  /** Bytes received from clients so far (a request has reached the store once this grows). */
  received: number;
  close(): Promise<void>;
};

export async function startSlowProxy(targetPort: number): Promise<SlowProxy> {
  const sockets = new Set<Socket>();
  const relay = (from: Socket, to: Socket, counted = false) =>
    from.on("data", (chunk: Buffer) => {
      if (counted) proxy.received += chunk.length;
      const pass = () => to.destroyed || to.write(chunk);
      if (proxy.delayMs > 0) setTimeout(pass, proxy.delayMs).unref();
      else pass();
    });
  const server = createServer((client) => {
    const upstream = createConnection({ host: "127.0.0.1", port: targetPort });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    relay(client, upstream, true);
    relay(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const proxy: SlowProxy = {
    endpoint: `http://127.0.0.1:${port}`,
    delayMs: 0,
    received: 0,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
