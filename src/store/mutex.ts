/** A FIFO async mutex: serializes work on a single SQLite connection within one process. */

export class Mutex {
  #locked = false;
  #waiters: Array<() => void> = [];

  get locked(): boolean {
    return this.#locked;
  }

  /** Takes the lock if it is free, without waiting (and without a promise); false otherwise. */
  tryAcquire(): boolean {
    if (this.#locked) return false;
    this.#locked = true;
    return true;
  }

  async acquire(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }
}
