/**
 * Control messages across workers over Redis pub/sub: one subscriber connection per
 * bridge (lazily opened), one channel per run with local handlers, unsubscribed when the
 * last handler of the run goes. Pub/sub is fire-and-forget: a worker that is not
 * subscribed at that moment never sees the message, so a cancel must also be recorded
 * durably (the run store) and this channel is only the fast path to the owning worker.
 *
 * SUBSCRIBE and UNSUBSCRIBE wait for the subscriber connection's handshake (see
 * `afterHandshake`): ioredis 5 writes them at once while a connection is still in it,
 * and a SUBSCRIBE answered before the handshake's INFO ready check puts the connection in
 * subscriber mode, so the check is refused — ioredis then rejects every queued SUBSCRIBE
 * with "Connection in subscriber mode, only subscriber commands may be used" and
 * reconnects without the channels that were confirmed in between.
 */
import type { Redis } from "ioredis";
import { ControlHandlers, isControlMessage } from "../../kernel/runs/control-handlers.js";
import type { ControlMessage } from "../../kernel/runs/types.js";
import { controlChannel, runIdOfControlChannel } from "./keys.js";

export class RedisControlChannel {
  private readonly handlers: ControlHandlers;
  /** Channels subscribed (or being subscribed): a second handler waits for the same SUBSCRIBE. */
  private readonly subscribed = new Map<string, Promise<unknown>>();
  private subscriber: Redis | undefined;

  constructor(
    private readonly redis: Redis,
    onHandlerError?: (error: unknown, runId: string) => void,
  ) {
    this.handlers = new ControlHandlers(onHandlerError);
  }

  async publish(runId: string, message: ControlMessage): Promise<void> {
    await this.redis.publish(controlChannel(runId), JSON.stringify({ type: message.type, action: message.action }));
  }

  /** Resolves once Redis confirmed the subscription, so a message published after it is received. */
  async listen(runId: string, handler: (message: ControlMessage) => void): Promise<() => Promise<void>> {
    const channel = controlChannel(runId);
    const subscriber = this.connection();
    const remove = this.handlers.add(runId, handler);
    let ready = this.subscribed.get(channel);
    if (!ready) this.subscribed.set(channel, (ready = afterHandshake(subscriber).then(() => subscriber.subscribe(channel))));
    try {
      await ready;
    } catch (error) {
      remove();
      if (this.subscribed.get(channel) === ready) this.subscribed.delete(channel);
      throw error;
    }
    return async () => {
      remove();
      if (this.handlers.has(runId) || !this.subscribed.has(channel)) return;
      this.subscribed.delete(channel);
      // Commands on one connection run in order: a SUBSCRIBE issued after this one wins.
      await afterHandshake(subscriber);
      await subscriber.unsubscribe(channel);
    };
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.subscribed.clear();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await closeConnection(subscriber);
  }

  private connection(): Redis {
    if (this.subscriber) return this.subscriber;
    // No ready check (INFO): ioredis sends it only after its async client-info commands, and a
    // SUBSCRIBE sent in that window puts the connection in subscriber mode first, so the check is
    // refused ("Connection in subscriber mode") and every pending subscription fails with it.
    const subscriber = this.redis.duplicate({ enableReadyCheck: false });
    subscriber.on("error", () => undefined); // a failed SUBSCRIBE rejects `listen`; ioredis resubscribes on reconnect
    subscriber.on("message", (channel: string, text: string) => this.receive(channel, text));
    return (this.subscriber = subscriber);
  }

  private receive(channel: string, text: string): void {
    const runId = runIdOfControlChannel(channel);
    if (runId === null) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return; // not ours: anything may publish on a Redis channel
    }
    if (isControlMessage(message)) this.handlers.deliver(runId, message);
  }
}

/**
 * Resolves once `connection` is past its handshake. In ioredis 5 the handshake (status
 * `connect`: AUTH, SELECT, CLIENT SETINFO, then the INFO ready check) lets commands
 * Redis allows while loading — SUBSCRIBE and UNSUBSCRIBE among them — be written at
 * once instead of queued; every other status is safe: `ready` sends, and
 * `wait`/`connecting`/`reconnecting`/`close` queue the command until after the next
 * handshake. Resolves after `ready` has been handled (resubscriptions first), or on
 * `close`/`end` (the command is then queued or rejected as usual). ioredis issue #2037.
 */
export async function afterHandshake(connection: Redis): Promise<void> {
  if (connection.status !== "connect") return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      for (const event of HANDSHAKE_ENDS) connection.off(event, done);
      resolve();
    };
    for (const event of HANDSHAKE_ENDS) connection.once(event, done);
  });
}

const HANDSHAKE_ENDS = ["ready", "close", "end"] as const;

/** QUIT when connected (pending replies arrive first), otherwise drop the socket at once. */
export async function closeConnection(connection: Redis): Promise<void> {
  if (connection.status === "ready") {
    try {
      await connection.quit();
      return;
    } catch {
      // fall through: the connection failed while quitting
    }
  }
  connection.disconnect();
}
