import type { ToolFixture } from "../../contracts/scenario/v1.js";
import type { Composition, ResolvedPlugin } from "../../kernel/compose/types.js";
import { toKeelTool } from "../../kernel/interop/langchain-tools.js";
import type { KeelTool, ToolOutput } from "../../kernel/plugin/types.js";

/**
 * Tools whose recorded result is used but which still run, so the workspace holds what the
 * recorded run wrote (their arguments carry the whole change). Every other tool with a
 * fixture (read_file, ls, …) does not run at all. `bash` is never wrapped: the workspace
 * records a run of its own bash tool object only (acceptance evidence), so recorded bash
 * results are the scenario's scripted `bash` answers instead (`bashFixtures`).
 */
export const TOOLS_RUN_UNDER_FIXTURE: ReadonlySet<string> = new Set(["write_file", "str_replace"]);
export const UNWRAPPED_TOOLS: ReadonlySet<string> = new Set(["bash"]);

const fixtureKey = (agent: string, toolCallId: string) => `${agent}\u0000${toolCallId}`;

/**
 * The composition with every plugin tool wrapped: a call that has a recorded result
 * (scenario `toolResults`, matched by agent path, tool call id and tool name) gets it; any
 * other call runs the tool as usual. Hooks (receipts, guards, sanitize) see the same calls.
 */
export function withToolFixtures(composition: Composition, fixtures: readonly ToolFixture[] | undefined): Composition {
  if (!fixtures || fixtures.length === 0) return composition;
  const byCall = new Map(fixtures.map((f) => [fixtureKey(f.agent, f.toolCallId), f] as const));
  const named = new Set(fixtures.map((f) => f.tool).filter((name) => !UNWRAPPED_TOOLS.has(name)));
  const plugins = new Map<string, ResolvedPlugin>();
  for (const [name, resolved] of composition.plugins) {
    const tools = resolved.plugin.tools;
    // Only tools that have a fixture are wrapped: a plugin may recognise its own tool object (subagents' `task`).
    if (tools === undefined || !tools.some((t) => named.has(toKeelTool(t).name))) plugins.set(name, resolved);
    else plugins.set(name, { ...resolved, plugin: { ...resolved.plugin, tools: tools.map((t) => (named.has(toKeelTool(t).name) ? fixtureTool(toKeelTool(t), byCall) : t)) } });
  }
  return { ...composition, plugins };
}

function fixtureTool(tool: KeelTool, byCall: ReadonlyMap<string, ToolFixture>): KeelTool {
  return {
    ...tool,
    async invoke(args, ctx): Promise<ToolOutput> {
      const fixture = byCall.get(fixtureKey(ctx.agent, ctx.toolCallId));
      if (fixture === undefined || fixture.tool !== tool.name) return tool.invoke(args, ctx);
      let artifact: unknown;
      if (TOOLS_RUN_UNDER_FIXTURE.has(tool.name)) {
        try {
          const output = await tool.invoke(args, ctx);
          if (typeof output === "object") artifact = output.artifact;
        } catch {
          // The recorded result stands, whatever the tool does here.
        }
      }
      return { content: fixture.content, status: fixture.status ?? "success", ...(artifact === undefined ? {} : { artifact }) };
    },
  };
}

/**
 * A recorded bash result as a scripted answer for exactly its command (a regex anchored at
 * both ends): the output and the final `exit code: N` line split apart.
 */
export function scriptedBashOf(command: string, content: string): { match: string; output: string; exitCode?: number } {
  const match = `/^${command.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$/s`;
  const exit = /(?:^|\n)exit code: (-?\d+|null)$/.exec(content);
  if (!exit) return { match, output: content };
  const output = content.slice(0, exit.index + (content[exit.index] === "\n" ? 1 : 0));
  return { match, output, ...(exit[1] === "null" ? {} : { exitCode: Number(exit[1]) }) };
}
