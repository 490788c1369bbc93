/**
 * Requests sent and not yet answered, by id. An answer whose id is not here
 * (never sent, already answered, or given up on) is refused by `settle`, so
 * the caller can drop and log it instead of handing it to the wrong call.
 */
export class PendingRequests<Response> {
  private readonly pending = new Map<string, { resolve: (response: Response) => void; reject: (error: Error) => void }>();
  private next = 0;

  /** A fresh id and the promise its answer settles. */
  open(): { id: string; answer: Promise<Response> } {
    this.next += 1;
    const id = String(this.next);
    const answer = new Promise<Response>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    return { id, answer };
  }

  /** Hands the answer to its request; false when no request with that id is waiting. */
  settle(id: string, response: Response): boolean {
    const waiter = this.pending.get(id);
    if (!waiter) return false;
    this.pending.delete(id);
    waiter.resolve(response);
    return true;
  }

  forget(id: string): void {
    this.pending.delete(id);
  }

  failAll(error: Error): void {
    const waiters = [...this.pending.values()];
    this.pending.clear();
    for (const waiter of waiters) waiter.reject(error);
  }

  get size(): number {
    return this.pending.size;
  }
}
