// The floor under the fan-out: no GraphQL, no WebSocket library, just the bytes of one event's
// frame (as large as the fan-out's) written to each of N loopback TCP sockets, R times, from one
// process to readers in processes of their own (as the fan-out's clients are). The sender's CPU
// per write is what the kernel charges for a send to one peer on this machine at this moment; the
// server's CPU per event delivered cannot go below it (fanout.ts prints both).
import { fork } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";

const PER_PROCESS = 2_500;
/** A graphql-transport-ws "next" frame of the fan-out's size (its payload is ~110 bytes). */
const FRAME = Buffer.alloc(120, "x");

export type FanoutFloor = { connections: number; rounds: number; cpuUsPerSend: number; wallMsPerRound: number };

export async function fanoutFloor(connections: number, rounds: number): Promise<FanoutFloor> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
  const port = (server.address() as net.AddressInfo).port;
  const expected = FRAME.length * rounds;
  const readers = Array.from({ length: Math.ceil(connections / PER_PROCESS) }, (_, i) => {
    const count = Math.min(PER_PROCESS, connections - i * PER_PROCESS);
    const child = fork(fileURLToPath(import.meta.url), [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child.send({ port, count, bytes: expected });
    return new Promise<void>((resolve) => child.once("message", () => resolve())).then(() => child);
  });
  while (sockets.length < connections) await new Promise((resolve) => setTimeout(resolve, 20));
  const done = Promise.all(readers);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (const socket of sockets) socket.write(FRAME);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - started;
  for (const child of await done) child.kill();
  for (const socket of sockets) socket.destroy();
  server.close();
  return {
    connections,
    rounds,
    cpuUsPerSend: (used.user + used.system) / (connections * rounds),
    wallMsPerRound: wall / rounds,
  };
}

// A reader process: `count` connections, each read until it got `bytes`; then it says so.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once("message", async ({ port, count, bytes }: { port: number; count: number; bytes: number }) => {
    let finished = 0;
    // In batches, as the fan-out's clients connect: thousands of SYNs at once overflow the backlog.
    for (let at = 0; at < count; at += 100) {
      const batch: Promise<void>[] = [];
      for (let i = at; i < Math.min(count, at + 100); i++) {
        let got = 0;
        const socket = net.connect(port, "127.0.0.1");
        batch.push(new Promise((connected) => socket.once("connect", () => connected())));
        socket.on("data", (chunk) => {
          got += chunk.length;
          if (got >= bytes && ++finished === count) process.send!("done");
        });
        socket.on("error", () => {});
      }
      await Promise.all(batch);
    }
  });
}

// `node --import tsx bench/baselines/fanout-floor.ts [connections] [rounds]`
if (!process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const [connections = 10_000, rounds = 20] = process.argv.slice(2).map(Number);
  console.log(await fanoutFloor(connections, rounds));
}
