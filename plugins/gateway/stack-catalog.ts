import type { DrawnGraph } from "../../kernel/loop/runtime.js";

/** What `GET /assistants/:id/schemas` answers (LangGraph's GraphSchema, plus `graph_id`). */
export interface StackSchemas {
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
  state_schema: Record<string, unknown>;
  /** The composed stack's options: `{ plugins: { <plugin>: its config schema, defaults filled in }, model, maxTurns }`. */
  config_schema: Record<string, unknown>;
  /** The same as `config_schema` (an assistant's options are its `context`). */
  context_schema: Record<string, unknown>;
}

/**
 * The served stacks as the assistants API describes them; the host (`keel serve`) builds
 * it from the compositions it serves. Without one, the gateway checks only the shape
 * of an assistant's options and answers 404 for graphs and schemas.
 */
export interface StackCatalog {
  /**
   * Check an assistant's (or a run's) options against the stack: `plugins` must name the
   * stack's plugins with options their config schemas accept (the stack file's
   * config below them), `model` must be served, `maxTurns` an integer ≥ 1. Throws a
   * KeelError (`KEEL_ERR_CONFIG_INVALID`, `KEEL_ERR_RUN_MODEL_NOT_ALLOWED`) whose
   * pointer is relative to the context (`/plugins/receipts/render`).
   */
  checkOptions(graphId: string, context: Record<string, unknown>): void;
  /** The lead loop's graph; with `xray`, the subagent stack's loop too, its node ids prefixed `subagent:`. */
  graph(graphId: string, options: { xray: boolean }): Promise<DrawnGraph>;
  /** Input, output, state and config schemas of the stack, with `context`'s plugin options as the defaults. */
  schemas(graphId: string, context?: Record<string, unknown>): StackSchemas;
  /** The stack's child graphs by namespace (`subagent`, when the stack delegates), each its stack name (`graph_id`) and schemas, as the SDK's `Subgraphs`. */
  subgraphs(graphId: string): Record<string, StackSchemas & { graph_id: string }>;
  /** A one-line description of the stack (its stack file's). */
  description(graphId: string): string | undefined;
}
