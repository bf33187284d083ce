// Most active subscriptions one holder (an access token, or a client address without one) may
// have on this instance, whatever the transport and however many connections it opens.
export class SubscriptionQuota {
  private readonly active = new Map<string, number>();

  constructor(private readonly maxPerHolder: number) {}

  /** A release function (call it once the subscription ends; further calls do nothing), or null when over the quota. */
  admit(holder: string): (() => void) | null {
    const count = this.active.get(holder) ?? 0;
    if (count >= this.maxPerHolder) return null;
    this.active.set(holder, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.active.get(holder) ?? 1) - 1;
      if (left > 0) this.active.set(holder, left);
      else this.active.delete(holder);
    };
  }
}
