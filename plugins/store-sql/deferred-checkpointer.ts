import { BaseCheckpointSaver } from "@langchain/langgraph";

type Saver = BaseCheckpointSaver;

/**
 * A checkpointer that is usable before its backing saver is ready: every call waits for
 * the saver (e.g. PostgresSaver after `setup()`), then forwards. A failed setup fails
 * each call with the setup's error instead of an unhandled rejection at start.
 */
export class DeferredCheckpointSaver extends BaseCheckpointSaver {
  constructor(
    private readonly ready: Promise<Saver>,
    private readonly closeSaver: (saver: Saver) => Promise<void>,
  ) {
    super();
    // Observed here so a failure surfaces through the calls, not as an unhandled rejection.
    ready.catch(() => undefined);
  }

  override async getTuple(...args: Parameters<Saver["getTuple"]>): ReturnType<Saver["getTuple"]> {
    return (await this.ready).getTuple(...args);
  }

  override async *list(...args: Parameters<Saver["list"]>): ReturnType<Saver["list"]> {
    yield* (await this.ready).list(...args);
  }

  override async put(...args: Parameters<Saver["put"]>): ReturnType<Saver["put"]> {
    return (await this.ready).put(...args);
  }

  override async putWrites(...args: Parameters<Saver["putWrites"]>): ReturnType<Saver["putWrites"]> {
    return (await this.ready).putWrites(...args);
  }

  override async deleteThread(...args: Parameters<Saver["deleteThread"]>): ReturnType<Saver["deleteThread"]> {
    return (await this.ready).deleteThread(...args);
  }

  /** Closes the saver once it is ready; nothing to close when its setup failed. */
  async close(): Promise<void> {
    const saver = await this.ready.catch(() => undefined);
    if (saver) await this.closeSaver(saver);
  }
}
