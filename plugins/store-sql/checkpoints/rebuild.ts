/**
 * Rebuilding checkpoints' channel values from their rows: a snapshot's `set` rows, then
 * each descendant's changes in parent-to-child order (see `schema.ts`).
 */
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { KeelError } from "../../../kernel/errors.js";
import { applySplice } from "./channel-diff.js";
import { bytesOf, type SqlRow } from "./sql-executor.js";

export interface HeaderLink {
  checkpointId: string;
  parentId: string | null;
  snapshotId: string;
}

export type ChannelValues = Record<string, unknown>;

/**
 * Values of `targets`, all in one snapshot group whose links (id → parent) and value rows
 * are given. Each checkpoint is computed once, from its parent's values (memoized), so a
 * list of many checkpoints of one group costs one pass over the group's rows.
 */
export class GroupRebuilder {
  private readonly rowsById = new Map<string, SqlRow[]>();
  private readonly built = new Map<string, ChannelValues>();

  constructor(
    private readonly links: ReadonlyMap<string, HeaderLink>,
    valueRows: readonly SqlRow[],
    private readonly serde: SerializerProtocol,
  ) {
    for (const row of valueRows) {
      const id = String(row.checkpoint_id);
      const list = this.rowsById.get(id) ?? [];
      list.push(row);
      this.rowsById.set(id, list);
    }
  }

  async values(checkpointId: string): Promise<ChannelValues> {
    // Iterative: walk up to the first built ancestor (or the snapshot), then down.
    const chain: string[] = [];
    let cursor: string | null = checkpointId;
    let base: ChannelValues | undefined;
    while (cursor !== null) {
      const done = this.built.get(cursor);
      if (done) {
        base = done;
        break;
      }
      const link = this.links.get(cursor);
      if (!link) throw corrupt(checkpointId, `its ancestor ${cursor} is missing`);
      chain.push(cursor);
      cursor = link.snapshotId === cursor ? null : link.parentId;
      if (cursor === null && link.snapshotId !== link.checkpointId) throw corrupt(checkpointId, `${link.checkpointId} has no parent but is not a snapshot`);
      if (chain.length > this.links.size) throw corrupt(checkpointId, "its parents form a cycle");
    }
    let values = base ?? {};
    for (let i = chain.length - 1; i >= 0; i -= 1) {
      const id = chain[i]!;
      values = await this.apply(id, values);
      this.built.set(id, values);
    }
    return values;
  }

  private async apply(checkpointId: string, parent: ChannelValues): Promise<ChannelValues> {
    const link = this.links.get(checkpointId)!;
    const out: ChannelValues = link.snapshotId === checkpointId ? {} : { ...parent };
    for (const row of this.rowsById.get(checkpointId) ?? []) {
      const channel = String(row.channel);
      if (row.op === "unset") delete out[channel];
      else if (row.op === "set") out[channel] = await this.serde.loadsTyped(String(row.type), bytesOf(row.value));
      else if (row.op === "splice") {
        const items = (await this.serde.loadsTyped(String(row.type), bytesOf(row.value))) as unknown[];
        try {
          out[channel] = applySplice(out[channel], Number(row.from_index), Number(row.keep_until), items);
        } catch {
          throw corrupt(checkpointId, `channel \`${channel}\` is a list delta without its base list`);
        }
      } else throw corrupt(checkpointId, `unknown op \`${String(row.op)}\``);
    }
    return out;
  }
}

function corrupt(checkpointId: string, why: string): KeelError {
  return new KeelError("KEEL_ERR_CHECKPOINT_CORRUPT", `checkpoint ${checkpointId} cannot be rebuilt: ${why}`);
}

/** The ids from `checkpointId` up to its snapshot, child first. */
export function chainToSnapshot(links: ReadonlyMap<string, HeaderLink>, checkpointId: string): string[] {
  const chain: string[] = [];
  let cursor: string | null = checkpointId;
  while (cursor !== null) {
    const link = links.get(cursor);
    if (!link) throw corrupt(checkpointId, `its ancestor ${cursor} is missing`);
    chain.push(cursor);
    if (link.snapshotId === cursor) break;
    cursor = link.parentId;
    if (chain.length > links.size) throw corrupt(checkpointId, "its parents form a cycle");
  }
  return chain;
}
