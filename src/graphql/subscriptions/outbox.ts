// What one socket or stream sends its subscriber, bounded. The peer may have at most
// LIVE_MAX_BUFFERED_BYTES waiting (in the server, past the kernel's buffers); past that an answer
// waits its turn, holding its subscription (which pulls no further event meanwhile: events wait
// as ids, see events/live-source.ts), until the peer has taken enough. A peer that reads slowly is
// served at its pace; one that takes nothing for LIVE_STALL_TIMEOUT while answers wait is
// dropped (WebSocket close 1008, stream cut off). So the memory one peer can hold is the bound
// plus one waiting answer per subscription, whether it reads or not.

/** The peer as the outbox needs it (a WebSocket, or an event stream's response). */
export type Peer = {
  /** Bytes accepted but not yet handed to the kernel. */
  buffered(): number;
  send(text: string): void;
  /** Ends the peer for not reading. */
  drop(): void;
  /** Whether it can still be sent to. */
  open(): boolean;
};

type Waiting = { text: string; since: number; done(sent: boolean): void };

/** How often a waiting answer looks again whether the peer took enough. */
const POLL_MS = 25;

export class Outbox {
  private readonly waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  private dropped = false;

  constructor(
    private readonly peer: Peer,
    private readonly maxBytes: number,
    private readonly stallMs: number,
    /** Told once, when the peer is dropped for not reading (metrics). */
    private readonly onDrop: () => void,
  ) {}

  /** Sends `text` now if there is room and nobody waits, else in turn; false when the peer is gone or was dropped. */
  send(text: string): Promise<boolean> {
    if (this.dropped || !this.peer.open()) return Promise.resolve(false);
    if (this.waiting.length === 0 && this.peer.buffered() < this.maxBytes) {
      this.peer.send(text);
      return Promise.resolve(true);
    }
    return new Promise((done) => {
      this.waiting.push({ text, since: Date.now(), done });
      this.timer ??= setInterval(() => this.serve(), POLL_MS);
    });
  }

  /** Protocol messages (acknowledgements, pongs, completions, errors): small, sent at once unless the peer was dropped. */
  sendNow(text: string): boolean {
    if (this.dropped || !this.peer.open()) return false;
    this.peer.send(text);
    return true;
  }

  /** The peer went away: answers still waiting are not sent. */
  close(): void {
    this.stop(false);
  }

  private serve() {
    if (!this.peer.open()) return this.stop(false);
    while (this.waiting.length > 0 && this.peer.buffered() < this.maxBytes) {
      const next = this.waiting.shift()!;
      this.peer.send(next.text);
      next.done(true);
    }
    if (this.waiting.length === 0) return this.stop(true);
    if (Date.now() - this.waiting[0].since > this.stallMs) {
      this.dropped = true;
      this.onDrop();
      this.peer.drop();
      this.stop(false);
    }
  }

  private stop(sent: boolean) {
    clearInterval(this.timer);
    this.timer = undefined;
    if (!sent) for (const waiting of this.waiting.splice(0)) waiting.done(false);
  }
}
