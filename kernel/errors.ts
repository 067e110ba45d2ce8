/**
 * Every error Keel raises has a stable code `KEEL_ERR_<AREA>_<PROBLEM>`, a description
 * and a "how to solve" line. `docs/errors.md` is generated from this table
 * (`keel docs build`) and a test keeps the two in sync.
 */
import { CONTRACT_ERRORS, KEEL_ERROR_BRAND, KeelError as KeelErrorBase, type ErrorSpec, type KeelErrorOptions } from "../contracts/errors.js";

export type { ErrorSpec, KeelErrorOptions };

export const ERRORS = {
  KEEL_ERR_MANIFEST_INVALID: {
    description: "A plugin manifest does not match the manifest@1 contract; the message names the field (JSON pointer).",
    solve: "Fix the named manifest field; `keel plugin check MODULE` lists every problem at once.",
  },
  KEEL_ERR_MANIFEST_HOOKS: {
    description: "The hooks a manifest declares differ from the hook functions the plugin supplies.",
    solve: "Declare every implemented hook under `manifest.hooks` and implement every declared one.",
  },
  KEEL_ERR_PLUGIN_MODULE_INVALID: {
    description: "A plugin module could not be loaded or does not default-export a plugin (`{ manifest, hooks }`).",
    solve: "Default-export what `definePlugin` returns, or a plain `{ manifest, hooks }` object, from a .js/.mjs module.",
  },
  KEEL_ERR_COMPOSE_UNKNOWN_PLUGIN: {
    description: "A stack names a plugin that is neither built in nor loaded with `--plugin` / `module`.",
    solve: "Check the spelling, load the module with `--plugin FILE`, or use `{ module: \"./path.js\" }` in the stack.",
  },
  KEEL_ERR_COMPOSE_DUPLICATE: {
    description: "Two plugins in one stack have the same name.",
    solve: "Keep one of them; plugin names must be unique within a stack.",
  },
  KEEL_ERR_COMPOSE_KERNEL_RANGE: {
    description: "A plugin's `kernel` range does not include this kernel's version.",
    solve: "Upgrade the plugin, or widen its `kernel` range if it really supports this kernel.",
  },
  KEEL_ERR_COMPOSE_CHANNEL_OWNER: {
    description: "A channel is declared by more than one owner (the kernel or plugins).",
    solve: "Give each channel exactly one owner; other plugins observe or mutate it without declaring it.",
  },
  KEEL_ERR_COMPOSE_UNKNOWN_CHANNEL: {
    description: "A plugin observes or mutates a channel that no plugin in the stack (nor the kernel) owns.",
    solve: "Add the owning plugin to the stack, fix the channel name, or declare the access `{ name, optional: true }`.",
  },
  KEEL_ERR_COMPOSE_CONTRACT: {
    description: "A plugin consumes a contract range that no plugin in the stack (nor the kernel) produces.",
    solve: "Add a plugin that produces a matching version, or widen the consumed range.",
  },
  KEEL_ERR_COMPOSE_MISSING_PORT: {
    description: "A plugin requires a port (e.g. `workspace`, `store`) that no plugin in the stack provides.",
    solve: "Add a service plugin that provides the port to the stack.",
  },
  KEEL_ERR_COMPOSE_PORT_CONFLICT: {
    description: "Two plugins in the stack provide the same port (e.g. two `stream-bridge` services), so which one serves it would be a guess.",
    solve: "Keep one provider of the port in the stack (for `keel serve`: drop `--redis` or the `--plugin` that provides `stream-bridge`).",
  },
  KEEL_ERR_COMPOSE_MISSING_DEP: {
    description: "A plugin's hard `requiresBefore` dependency, or a plugin named in `order`, is not in the stack.",
    solve: "Add the required plugin, or make the entry `{ name, optional: true }` if it is only an ordering rule.",
  },
  KEEL_ERR_COMPOSE_CYCLE: {
    description: "The ordering constraints (`requiresBefore`, `order` and hook placements) form a cycle; the message shows the whole path and the declaration behind each edge.",
    solve: "Remove or reverse one of the listed edges.",
  },
  KEEL_ERR_COMPOSE_PLACEMENT_CONFLICT: {
    description: "A hook's placement (`hooks.<hook>.order: \"pre\"` or `\"post\"`) contradicts a `requiresBefore` or a stack `order` pair; the message names both plugins and the declarations.",
    solve: "Remove the placement, or the declaration that orders the two plugins the other way.",
  },
  KEEL_ERR_COMPOSE_RACE: {
    description: "Two plugins access the same channel in the same hook (write/write or read/write) with no order between them.",
    solve: "Add one of the suggested pairs to the stack's `order`, or order it in the manifest you control: a `requiresBefore` entry, or a hook placement `hooks.<hook>.order: \"pre\"` / `\"post\"`.",
  },
  KEEL_ERR_COMPOSE_REJECTED: {
    description: "A stack did not compose; `CompositionError.problems` lists every problem, each with its own code.",
    solve: "Fix each listed problem; `keel compose STACK` prints them all with their fixes.",
  },
  KEEL_ERR_COMPOSITION_FROZEN: {
    description: "An attempt was made to change a composition after it was built.",
    solve: "Compose a new stack instead of editing a composition.",
  },
  KEEL_ERR_CONFIG_INVALID: {
    description: "A plugin's options do not match its config schema; the message gives the JSON pointer.",
    solve: "Fix the option at the given pointer (see the plugin's README for names and defaults).",
  },
  KEEL_ERR_CONFIG_UNKNOWN_PLUGIN: {
    description: "Config was given for a plugin that is not in the stack.",
    solve: "Remove the config entry or add the plugin to the stack.",
  },
  KEEL_ERR_STACK_INVALID: {
    description: "A stack file does not match the stack@1 contract, or cannot be read.",
    solve: "Fix the stack file at the given JSON pointer.",
  },
  KEEL_ERR_STACK_EXTENDS_CYCLE: {
    description: "A stack's `extends` chain comes back to a stack already in it (`a` extends `b` extends `a`); the message lists the chain.",
    solve: "Remove one `extends` so the chain ends at a stack that extends nothing.",
  },
  KEEL_ERR_STACK_NOT_FOUND: {
    description: "A stack name is neither built in (`lead`, `subagent`, `lead-approval`, `subagent-approval`) nor an existing file.",
    solve: "Use a built-in stack name or a path to a stack@1 JSON file.",
  },
  KEEL_ERR_HOOK_UNDECLARED_MUTATION: {
    description:
      "A hook wrote a channel outside its manifest's `mutates`, or changed in place what it was handed (a channel value, a message, or a wrap hook's request or response it does not declare in `mutates`).",
    solve: "Declare the channel (or `model.request`, `model.response`, `tool.request`, `tool.response`) in `mutates` and return an update, pass a new request to `next` or return a new response; never edit handed values in place.",
  },
  KEEL_ERR_CHANNEL_SCHEMA: {
    description: "An update written to a channel does not match the channel's `schema` (each written update is checked, not the reduced value).",
    solve: "Write values the channel's schema accepts (the message gives the JSON pointer), or fix the schema in the owning manifest's `channels`.",
  },
  KEEL_ERR_CHANNEL_REDUCER: {
    description: "An update cannot be applied by the channel's reducer (e.g. `sum` given something that is not a number or an object of numbers).",
    solve: "Write what the reducer takes: numbers, or objects whose leaves are numbers, for `sum`.",
  },
  KEEL_ERR_HOOK_NEXT_TWICE: {
    description: "A wrap hook called `next()` more than once without declaring `retries: true` for that hook.",
    solve: "Call `next()` once, or declare `hooks.<hook>.retries: true` in the manifest.",
  },
  KEEL_ERR_HOOK_RETURN_TYPE: {
    description: "A wrap hook resolved to something other than what its `next()` resolves to (an AIMessage for `wrapModelCall`, a ToolMessage for `wrapToolCall`); the message names the plugin and hook.",
    solve: "Return `await next(request)` (or `next()`, the current request), or a new AIMessage / ToolMessage built from it.",
  },
  KEEL_ERR_HOOK_INTERRUPT_OUTSIDE_AFTER_MODEL: {
    description: "A hook called `ctx.interrupt()` outside afterModel; a hook pauses a run only after the model answered and before the tools step (a pause inside the parallel tools step would re-run sibling calls on resume).",
    solve: "Call `ctx.interrupt()` from an afterModel hook.",
  },
  KEEL_ERR_APPROVAL_DECISION_INVALID: {
    description: "A resume of a human-approval pause carried decisions that do not fit its request (not `{ decisions: [...] }`, a wrong count, a decision type the tool does not allow, an edit without an args object or naming another tool); nothing was applied, the thread is still interrupted with the same request plus this error.",
    solve: "Resume again with `{ decisions: [...] }`: one decision per `actionRequests` entry, in order, each of a type in that entry's `reviewConfigs[i].allowedDecisions`.",
  },
  KEEL_ERR_APPROVAL_REFUSED_IN_SUBAGENT: {
    description: "A delegated child called a tool that the human-approval policy (`interruptOn`) says needs approval; a child cannot pause for it, so the call was refused with an error result and the child goes on.",
    solve: "Make the call from the lead agent (where it is put to the user), or take the tool out of the child's `interruptOn` policy if it need not be approved.",
  },
  KEEL_ERR_PLUGIN_FAILED: {
    description: "A plugin hook threw an exception; the run ended `failed` and the message names the plugin and hook. An error with its own string `code` keeps it as `pluginCode` (and the message starts with it).",
    solve: "Fix the plugin; the original error is kept as `cause` and in the journal. A plugin's own codes (`PLUGIN_<NAME>_…`) are described by its manifest's `errors` and in the plugin codes table below.",
  },
  KEEL_ERR_MODEL_FAILED: {
    description: "The model provider returned an error that no plugin handled.",
    solve: "Check the provider message; add the error-fallback plugin to retry transient errors.",
  },
  KEEL_ERR_SUMMARIZE_FAILED: {
    description: "The summary model failed after the stack's retries (its provider error is in the message); summarization leaves the history as it is and tries again on the next turn.",
    solve: "Nothing to do for the run; if it keeps failing, check the summary model (`--summarizer-model`) and its provider.",
  },
  KEEL_ERR_RUN_CANCELLED: {
    description: "The run was cancelled through its AbortSignal.",
    solve: "Nothing to fix; start a new run if the work is still needed.",
  },
  KEEL_ERR_RUN_MODEL_NOT_ALLOWED: {
    description: "A run request named a model (`config.configurable.model` or `context.model`) that is not on the server's allowlist.",
    solve: "Name one of the models the server lists, or leave the model out to use the server's default.",
  },
  KEEL_ERR_RUN_CONFLICT: {
    description: "A run was requested on a thread that already has a pending or running run, with the multitask strategy `reject` (HTTP 409).",
    solve: "Wait for the active run (`join`), cancel it, or use the strategy `interrupt`, `rollback` or `enqueue`.",
  },
  KEEL_ERR_RUN_FORK_FAILED: {
    description: "A run asked to start from an earlier checkpoint of its thread (`checkpoint_id`) that is missing, or that cannot be copied faithfully (pending writes of a step that has not finished — still running, or stopped mid-step — or an older format); the run fails before the agent starts.",
    solve: "Pick a checkpoint of the thread's history whose step finished (any one with a later checkpoint after it, or one without pending writes), in the root namespace.",
  },
  KEEL_ERR_RUN_ROLLBACK_UNAVAILABLE: {
    description: "A rollback was requested for a run whose pre-run checkpoint or workspace snapshot could not be captured, so it cannot be undone completely; nothing was changed (HTTP 409).",
    solve: "Use `interrupt` (keeps the run's progress) instead, or give the runtime executor a checkpointer (and a workspace directory) so rollback points can be captured.",
  },
  KEEL_ERR_RUN_LIMIT: {
    description: "The user already has the maximum number of pending or running runs (8 by default, across threads) (HTTP 429).",
    solve: "Wait for a run to finish, or cancel one.",
  },
  KEEL_ERR_RUN_NOT_FOUND: {
    description: "The run does not exist, or it is not a run of the given thread or user (HTTP 404).",
    solve: "Check the run and thread ids; runs are visible only to the owner of their thread.",
  },
  KEEL_ERR_THREAD_NOT_FOUND: {
    description: "The thread does not exist, or belongs to another user (HTTP 404).",
    solve: "Create the thread first, or check its id and the API key's user.",
  },
  KEEL_ERR_CRON_SCHEDULE_INVALID: {
    description: "A cron's `schedule` is not a five-field cron expression (or a nickname such as `@hourly`), or its `timezone` is not an IANA time zone; the pointer names the field (400).",
    solve: "Send five space-separated fields, minute hour day-of-month month day-of-week (e.g. `0 9 * * 1-5`), and a zone such as `Europe/Paris` or none for UTC.",
  },
  KEEL_ERR_RUN_SHUTTING_DOWN: {
    description: "The run manager is shutting down and admits no new runs (HTTP 503).",
    solve: "Retry against another worker, or after the server has restarted.",
  },
  KEEL_ERR_RUN_INPUT_INVALID: {
    description: "A run's input is neither a string nor `{ messages: [{ role, content }] }` (roles `user`/`human`, `assistant`/`ai`, `system`, `tool`); the run ended `failed`.",
    solve: "Send the input as a string or as LangGraph-style messages; the message gives the JSON pointer of the bad value.",
  },
  KEEL_ERR_RUN_INTERRUPT_NODE_UNKNOWN: {
    description: "A run's (or an assistant's) `interrupt_before` / `interrupt_after` is neither `\"*\"` nor a list of the agent loop's node names (`agent`, `tools`); nothing ran (over HTTP a 400, `pointer` names the entry).",
    solve: "Name `agent` (pause before/after a model step) or `tools` (before/after a tools step, e.g. to approve tool calls), or `\"*\"` for both.",
  },
  KEEL_ERR_RUN_JOIN_ABORTED: {
    description: "Waiting for a run (`join`, `wait`) was aborted by the caller's signal (e.g. the client disconnected) before the run's `end`; the run itself goes on.",
    solve: "Join the run again; its outcome is known only after `end`.",
  },
  KEEL_ERR_RUN_JOIN_INCOMPLETE: {
    description: "A run's stream stopped before its `end` event (the stream bridge closed, or the stream was dropped) while the run is not finished.",
    solve: "Join the run again later, or read its record; an unfinished run is never reported as a result.",
  },
  KEEL_ERR_STREAM_EVENT_ID_INVALID: {
    description: "A stream cursor (`Last-Event-ID`, `lastEventId`) or an event id is not of the form `<ms>-<seq>` (a cursor may also be `-1`: from the start).",
    solve: "Send back exactly the `id` of the last event received, or `-1` / no `Last-Event-ID` to join from the start.",
  },
  KEEL_ERR_STREAM_ENDED: {
    description: "An event was published to a run's stream after its `end` event (the commit marker).",
    solve: "Publish every event before `end`; a run's stream ends once, in the last step of finalization.",
  },
  KEEL_ERR_STREAM_RESERVED_EVENT: {
    description: "`publish` was given the event name `end` or `gap`, which only the stream bridge writes.",
    solve: "Call `end(runId)` to end a stream; `gap` is produced for a subscriber whose cursor fell out of retention.",
  },
  KEEL_ERR_STREAM_CLOSED: {
    description: "A stream bridge was used after `close()`.",
    solve: "Create a new bridge, or close it only when the process shuts down.",
  },
  KEEL_ERR_STREAM_UNAVAILABLE: {
    description: "The stream bridge's backend (Redis) did not answer: an event could not be published, or a stream could not be read (HTTP 503).",
    solve: "Check that Redis is up and reachable (`--redis` URL); retry the request — a subscriber that reconnects with its Last-Event-ID gets a `gap` event if events were lost meanwhile.",
  },
  KEEL_ERR_STREAM_FENCED: {
    description: "An event was refused because the run's stream already has events of a newer lease epoch: the publisher lost its lease to another worker.",
    solve: "Nothing to do on the stream: the run belongs to the newer lease holder. Stop the stale worker's run.",
  },
  KEEL_ERR_TOOL_UNKNOWN: {
    description: "The model called a tool that is not bound; the call got an error result and the run went on.",
    solve: "Bind the tool (through a plugin's `tools`) or correct the model's instructions.",
  },
  KEEL_ERR_TOOL_FAILED: {
    description: "A tool threw; the kernel turned the exception into an error tool result.",
    solve: "See the tool result for the error; fix the tool or its input.",
  },
  KEEL_ERR_TOOL_INVALID: {
    description: "Something given as a tool (a plugin's `tools`, the runtime's `tools` option) is neither a Keel tool (`{ name, description, schema, invoke }`) nor a LangChain tool.",
    solve: "Pass a Keel tool, or a LangChain tool as is (`tool()` from `@langchain/core/tools`, a `StructuredTool`, an MCP tool from `@langchain/mcp-adapters`).",
  },
  KEEL_ERR_LANGCHAIN_MIDDLEWARE_INVALID: {
    description: "`fromLangChainMiddleware` was given something that is not a LangChain v1 middleware (`createMiddleware`), or a manifest part that does not fit it (no `name`, a hook the middleware does not implement, a state field Keel cannot name as a channel).",
    solve: "Pass what `createMiddleware` (or a LangChain middleware factory) returns and a manifest part with at least `name`; declare only the hooks it implements.",
  },
  KEEL_ERR_LANGCHAIN_JUMP: {
    description: "A LangChain middleware returned a `jumpTo` target its hook does not declare in `canJumpTo`, or one that does not map onto Keel's loop (`model` after the model call, `tools` with no pending tool call or before the model call).",
    solve: "`end` maps onto a stop that ends the run; `model` only from beforeAgent/beforeModel and `tools` only from afterModel with pending tool calls (docs/langchain.md has the table). Rewrite the middleware's control flow as stop requests otherwise.",
  },
  KEEL_ERR_LANGCHAIN_UNSUPPORTED: {
    description: "A LangChain middleware or tool used a feature Keel does not map: a LangGraph `Command` result, an `interrupt`, or a changed `model`, `toolChoice`, `responseFormat` or `modelSettings` in wrapModelCall.",
    solve: "Keep the middleware to state updates, message and tool changes and `jumpTo: \"end\"`; docs/langchain.md lists what maps.",
  },
  KEEL_ERR_WORKSPACE_ESCAPE: {
    description: "A workspace tool was given a path outside the thread's workspace (directly or through a symlink).",
    solve: "Use a path relative to the workspace root.",
  },
  KEEL_ERR_BASH_TIMEOUT: {
    description: "A bash command ran longer than its `timeoutSeconds` (at most the workspace's `maxTimeoutSeconds`); its process group was killed.",
    solve: "Ask for a longer `timeoutSeconds`, raise the workspace option `maxTimeoutSeconds`, or make the command faster.",
  },
  KEEL_ERR_BASH_CPU_LIMIT: {
    description: "A bash command's process tree used more CPU seconds than the workspace's `maxCpuSeconds`; its process group was killed.",
    solve: "Raise the workspace option `maxCpuSeconds`, or do less work per command.",
  },
  KEEL_ERR_BASH_MEMORY_LIMIT: {
    description: "A bash command's process tree held more resident memory than the workspace's `maxMemoryMiB`; its process group was killed.",
    solve: "Raise the workspace option `maxMemoryMiB`, or make the command use less memory.",
  },
  KEEL_ERR_BASH_CANCELLED: {
    description: "The run was aborted (cancelled, interrupted, its lease lost or the server shutting down) while a bash command ran; its process group was killed.",
    solve: "Nothing to fix when the cancellation was intended; otherwise see why the run was aborted.",
  },
  KEEL_ERR_BASH_WATCHDOG: {
    description: "A bash command's watchdog killed its process group because the worker stopped renewing it (paused, stuck or dead), the watchdog was signalled, or the watchdog itself died.",
    solve: "Keep the worker's event loop responsive, or raise the workspace option `watchdogDeadlineMs` (it must stay below the lease TTL minus the heartbeat interval).",
  },
  ...CONTRACT_ERRORS,
  KEEL_ERR_SCENARIO_INVALID: {
    description: "A scenario file does not match scenario@1; the message names the JSON pointer.",
    solve: "Fix the scenario at the given pointer (its schema is `schemas/scenario.v1.schema.json`).",
  },
  KEEL_ERR_TESTER_CASE_INVALID: {
    description: "A PluginTester case is malformed: an unknown key in the case or its `expect`, no expectation at all, a name used twice, or a `scenario` that is not scenario@1 once the tester fills in `contract`, `version`, `name` and `stack`.",
    solve: "Fix the case the message names; a case is `{ name, scenario, expect?, assert? }` with at least one `expect` entry or an `assert` (docs/plugin-tester.md).",
  },
  KEEL_ERR_TESTER_MANIFEST: {
    description: "PluginTester's manifest audit (the same as `keel plugin check`'s) found a problem that rejects the manifest; no case ran.",
    solve: "Fix each listed manifest problem; warnings (e.g. no `config` schema) do not fail the audit.",
  },
  KEEL_ERR_TESTER_EXPECTATION: {
    description: "A PluginTester case ran, but an `expect` entry or its `assert` did not hold.",
    solve: "Fix the plugin, or the expectation if the plugin is right; the message gives expected and actual values.",
  },
  KEEL_ERR_TESTER_MANIFEST_BREACH: {
    description: "During a PluginTester case the plugin broke its manifest at run time (an undeclared write, `next()` twice, a wrong return type, a contract violation) and the case did not expect that error.",
    solve: "Declare what the plugin does in its manifest, or stop doing it; a case that tests the failure sets `expect.errorType` to the code.",
  },
  KEEL_ERR_TESTER_STATE_MUTATED: {
    description: "A hook changed, in place, state PluginTester handed it (a channel value, a message, a request); changes must go through the returned update, `ctx.update`, or the request passed to `next`.",
    solve: "Copy before changing: return `{ channel: newValue }`, or call `next({ ...request, messages: [...] })`.",
  },
  KEEL_ERR_TESTER_NOT_REPEATABLE: {
    description: "A PluginTester case gave different run reports on two fresh runtimes: the plugin keeps state between runs (module-level variables, caches) or depends on something outside the scenario.",
    solve: "Keep per-run state in channels (or in a map keyed by `ctx.runId`), not in module variables.",
  },
  KEEL_ERR_TESTER_FAILED: {
    description: "One or more PluginTester cases failed; `PluginTestFailure.failures` lists every one with its own code.",
    solve: "Fix each listed case.",
  },
  KEEL_ERR_SCHEMAS_DRIFT: {
    description: "The committed `schemas/` differ from what `contracts/` generates.",
    solve: "Run `npx keel schemas build` and commit the result.",
  },
  KEEL_ERR_DOCS_DRIFT: {
    description: "A generated document under `docs/` differs from what the code generates.",
    solve: "Run `npx keel docs build` and commit the result.",
  },
  KEEL_ERR_DOCS_TEMPLATE: {
    description: "A document whose reference section `keel docs build` generates (`docs/contracts.md`) has lost the markers around that section.",
    solve: "Put the `<!-- BEGIN GENERATED … -->` and `<!-- END GENERATED … -->` lines back where the section goes (the message names them), then run `npx keel docs build`.",
  },
  KEEL_ERR_CLI_USAGE: {
    description: "The command line is malformed (unknown command or flag, missing argument).",
    solve: "Run `keel --help` for the commands and flags.",
  },
  KEEL_ERR_CLI_FILE: {
    description: "A file named on the command line does not exist or cannot be read.",
    solve: "Check the path.",
  },
  KEEL_ERR_CLI_JSON: {
    description: "A file named on the command line is not valid JSON.",
    solve: "Fix the JSON syntax at the reported position.",
  },
  KEEL_ERR_REPLAY_REPORT: {
    description: "`keel replay` was given something it cannot replay: not a run report (run-report@1 or @2; the message names the JSON pointer), or a report without the lead's model requests.",
    solve: "Pass the report of a finished run: `GET /threads/THREAD/runs/RUN/report` of `keel serve`, or `keel run SCENARIO --json` saved to a file.",
  },
  KEEL_ERR_REPLAY_FETCH: {
    description: "`keel replay THREAD/RUN --url URL` could not fetch the run's report: the server is unreachable or answered an error (404 before the run finished, 401/403 without the right API key).",
    solve: "Check --url, pass --api-key (or KEEL_API_KEY) when the server has keys, and wait until the run has finished.",
  },
  KEEL_ERR_WATCH_RUN_NOT_FOUND: {
    description: "`keel watch THREAD/RUN` names a run the gateway does not have for this API key (missing, another user's, or rolled back).",
    solve: "Check the thread and run ids (`GET /threads/THREAD/runs`) and pass the API key of the run's user (--api-key or KEEL_API_KEY).",
  },
  KEEL_ERR_WATCH_FETCH: {
    description: "`keel watch` could not read the gateway: the server is unreachable, refused the API key (401/403), or answered an error.",
    solve: "Check --url (or KEEL_URL) and pass --api-key (or KEEL_API_KEY) when the server has keys.",
  },
  KEEL_ERR_CONTRACTS_BASE: {
    description: "`keel contracts check --base` names neither a directory holding `schemas/` nor a git ref of the current repository.",
    solve: "Pass a checkout directory (`--base ../main`) or a ref git knows (`--base origin/main`; in CI fetch it first, e.g. `git fetch origin main`).",
  },
  KEEL_ERR_CONTRACTS_INCOMPATIBLE: {
    description: "`keel contracts check` found a published schema changed incompatibly within its major version, removed, or given a new major without a migration.",
    solve: "Make the change compatible (optional fields, wider bounds), or publish it as `<name>.v<N+1>` with a migration registered in `contracts/migrations.ts`; see docs/contracts-compat.md.",
  },
  KEEL_ERR_STORE_URL_INVALID: {
    description: "A run store URL is neither `sqlite:PATH` (or `sqlite::memory:`) nor `postgres://…` / `postgresql://…`.",
    solve: "Use `sqlite:./.keel/keel.db` (the default) or a PostgreSQL URL such as `postgres://user:password@host:5432/db`.",
  },
  KEEL_ERR_STORE_CONFLICT: {
    description: "A thread or run was created with an id the run store already holds.",
    solve: "Use a fresh id (thread and run ids are UUIDs), or read the existing record instead of creating it again.",
  },
  KEEL_ERR_STORE_UNAVAILABLE: {
    description: "The run store's database (PostgreSQL) could not be reached for one call: the connection was refused, dropped (a terminated session, a restart, a cut network) or could not be acquired (HTTP 503). The process goes on; the next call reconnects.",
    solve: "Retry the request; check the `--db` server (`GET /ready` answers 503 with check `store` until it answers again).",
  },
  KEEL_ERR_STORE_THREAD_NOT_FOUND: {
    description: "A run was submitted for admission on a thread the run store does not hold.",
    solve: "Create the thread first (`POST /threads`), or check the thread id.",
  },
  KEEL_ERR_STORE_THREAD_DELETED: {
    description: "A run was submitted for admission on a thread that is being deleted (its deletion mark is set); nothing was stored (HTTP 404 `KEEL_ERR_HTTP_THREAD_DELETED`).",
    solve: "Create a new thread; a thread id can be used again once its purge has finished.",
  },
  KEEL_ERR_LEASE_FENCED: {
    description: "A write of a run (a checkpoint, a journal batch, a workspace file, a child's checkpoint) was made under a lease the worker no longer holds: the run store's lease row no longer matches its owner and epoch (another worker claimed the run, the run ended, or its lease expired), or the lease passed its local deadline (the last renewal + TTL − `leaseMarginMs`) without a heartbeat. Nothing was written; the run stops.",
    solve: "Nothing to repair: the run belongs to the newer lease holder (or the reaper ends it). On a checkpoint write, a malformed fence (`configurable.keel_fence` not `{ runId: string, epoch: integer }`) is a caller bug. Frequent losses: heartbeats are not getting through — check the store, or raise `leaseTtlMs`.",
  },
  KEEL_ERR_CHECKPOINT_THREAD_EXISTS: {
    description: "`copyThread(from, to)` on the checkpointer named a target thread that already has checkpoints.",
    solve: "Copy into a fresh thread id, or `deleteThread(to)` first.",
  },
  KEEL_ERR_CHECKPOINT_CORRUPT: {
    description: "The checkpointer's rows for a checkpoint cannot be rebuilt (a delta without its base, e.g. rows deleted by hand).",
    solve: "Read an older checkpoint or delete the thread; report the case if nothing outside the checkpointer touched its tables.",
  },
  KEEL_ERR_HTTP_INVALID_BODY: {
    description: "An HTTP request's body, query or path parameter does not match the route's schema, or is not valid JSON (400); `pointer` names the offending value.",
    solve: "Fix the value at `pointer` (the message names the field and what it must be); unknown fields are ignored, wrong types and values are not.",
  },
  KEEL_ERR_HTTP_UNAUTHORIZED: {
    description: "An HTTP request carried no API key, or one that is not in `KEEL_API_KEYS` (401); with a custom auth handler (`keel serve --auth`), the handler refused to authenticate it (its message is the answer's).",
    solve: "Send a configured key as `x-api-key: KEY` or `Authorization: Bearer KEY`; only `GET /ok` and `GET /info` need none.",
  },
  KEEL_ERR_HTTP_NOT_FOUND: {
    description: "The route, thread, run, assistant or report does not exist, or belongs to another user (404).",
    solve: "Check the ids; a thread is visible only to the user who created it.",
  },
  KEEL_ERR_HTTP_THREAD_EXISTS: {
    description: "`POST /threads` named a `thread_id` that already exists (409).",
    solve: "Use another id, omit `thread_id` to get a fresh one, or send `if_exists: \"do_nothing\"` to get the existing thread.",
  },
  KEEL_ERR_HTTP_THREAD_DELETED: {
    description: "A run was requested on a thread whose `DELETE` had already begun: the admission was refused and nothing was stored (404).",
    solve: "Create a new thread; the same id can be created again once the purge has finished (`DELETE` answered 204, or shortly after its 202).",
  },
  KEEL_ERR_HTTP_RUNTIME_OWNED_CHANNEL: {
    description: "A thread state write (`POST /threads/:tid/state`, `supersteps` of `POST /threads`) named a channel only the runtime writes — a plugin's `runtimeOwned` channel (receipts, delegations, bash runs, …) or the kernel's `stopReasons`, `usage`, `runMeta` — or Keel's message metadata (`additional_kwargs.keel`); nothing was written (400, `pointer` names it). Evidence cannot be forged through the API.",
    solve: "Write only the channels a client may write (e.g. `messages`, without `additional_kwargs.keel`); runtime-owned channels change only through runs.",
  },
  KEEL_ERR_HTTP_THREAD_STATE_UNAVAILABLE: {
    description: "A thread checkpoint route (history, state at a checkpoint, state updates, copy, prune `keep_latest`, `supersteps`) was called on a gateway built without a checkpoint reader (`GatewayDeps.threadState`) (501).",
    solve: "Serve with `keel serve` (it passes one), or pass `createThreadCheckpoints({ checkpointer, compositions })` as `deps.threadState` to `createGateway`.",
  },
  KEEL_ERR_HTTP_ASSISTANT_EXISTS: {
    description: "`POST /assistants` named an `assistant_id` that already exists — a user assistant, a served stack's name or its LangGraph UUID alias (409).",
    solve: "Use another id, omit `assistant_id` to get a fresh one, or send `if_exists: \"do_nothing\"` to get your existing assistant.",
  },
  KEEL_ERR_HTTP_ASSISTANT_READ_ONLY: {
    description: "An update, `setLatest` or delete named a system assistant (a served stack, `metadata.created_by: \"system\"`), which is defined by its stack file (409).",
    solve: "Create a user assistant on that stack (`POST /assistants` with `graph_id`) and change that one.",
  },
  KEEL_ERR_HTTP_RUN_ACTIVE: {
    description: "A run was requested on a thread that already has a pending or running run, with `multitask_strategy` `reject` (the default) (409).",
    solve: "Wait for the active run (`GET …/runs/:rid/join`), cancel it, or send `multitask_strategy` `interrupt`, `rollback` or `enqueue`.",
  },
  KEEL_ERR_HTTP_BODY_TOO_LARGE: {
    description: "The request body is larger than 1 MiB (413).",
    solve: "Send less: put large inputs in the thread's workspace instead of the run input.",
  },
  KEEL_ERR_HTTP_UNSUPPORTED_MEDIA_TYPE: {
    description: "The request body has a content type other than `application/json` (415).",
    solve: "Send JSON with `content-type: application/json`.",
  },
  KEEL_ERR_HTTP_TOO_MANY_RUNS: {
    description: "The user already has 8 pending or running runs (429).",
    solve: "Wait for a run to finish or cancel one; the limit is per user, across threads.",
  },
  KEEL_ERR_HTTP_NOT_READY: {
    description: "`GET /ready`: this worker is not ready (503) — its run store or its stream bridge (Redis) does not answer, or it is shutting down; the body's `checks` names which (`worker`, `store`, `stream`). `GET /ok` (liveness) still answers 200.",
    solve: "Wait: readiness returns by itself once the database or Redis answers again (no restart needed); check the `--db` / `--redis` servers named in `checks`.",
  },
  KEEL_ERR_HTTP_UNAVAILABLE: {
    description: "The server is shutting down and admits no new runs (503).",
    solve: "Retry against another worker, or after the server has restarted.",
  },
  KEEL_ERR_HTTP_INTERNAL: {
    description: "The server failed while answering (500); the run, if one was created, keeps its persisted state.",
    solve: "See the server log for the cause; report it if it repeats.",
  },
  KEEL_ERR_HTTP_BODY_TOO_DEEP: {
    description: "The JSON body nests arrays/objects deeper than 64 levels (400).",
    solve: "Flatten the value; no Keel request needs that much nesting.",
  },
  KEEL_ERR_HTTP_REQUEST_TIMEOUT: {
    description: "The request's headers (10 s) or the whole request with its body (30 s) did not arrive in time (408); the connection is closed.",
    solve: "Send the request at once; a client that trickles bytes is cut. Long answers (`/wait`, streams) are not affected.",
  },
  KEEL_ERR_HTTP_HEADERS_TOO_LARGE: {
    description: "The request headers are larger than Node's limit (16 KiB by default) (431).",
    solve: "Send fewer or smaller headers.",
  },
  KEEL_ERR_HTTP_MALFORMED_REQUEST: {
    description: "The bytes received are not a valid HTTP/1.1 request (400); the connection is closed.",
    solve: "Use an HTTP/1.1 client.",
  },
  KEEL_ERR_HTTP_TOO_MANY_CONNECTIONS: {
    description: "The client's address already holds the maximum of open connections (256 by default) (429); the connection is closed after this answer.",
    solve: "Reuse connections (keep-alive) or close idle ones; the cap is per remote address.",
  },
  KEEL_ERR_HTTP_HOST_NOT_ALLOWED: {
    description: "A server without API keys bound to loopback got a request whose `Host` is not `localhost`, `127.0.0.1` or `[::1]` (403): DNS rebinding is refused.",
    solve: "Address the server as localhost / 127.0.0.1 / [::1], or configure `KEEL_API_KEYS` to serve other host names.",
  },
  KEEL_ERR_HTTP_UNSUPPORTED_FIELD: {
    description: "A run request sets a LangGraph field to a value Keel does not support (400): `stream_subgraphs: true`, `feedback_keys`, `langsmith_tracer`, `durability: \"exit\"`, `checkpoint_during: false`, a `checkpoint_ns`, …; `pointer` names the field. Such a field is refused, never silently ignored.",
    solve: "Drop the field or send a supported value (docs/http.md, \"Runs API\", lists each field and what Keel does with it).",
  },
  KEEL_ERR_HTTP_WEBHOOK_NOT_ALLOWED: {
    description: "A run request's `webhook` is not an absolute http(s) URL whose host the server allows (400, `pointer` `/webhook`): webhooks are off unless the server names allowed hosts (`keel serve --webhook-host HOST`), and a loopback address is refused unless it is named.",
    solve: "Use a URL on an allowed host, or start the server with `--webhook-host` naming the host.",
  },
  KEEL_ERR_STORE_NO_INDEX: {
    description: "A store request asked for semantic search (`query` on `POST /store/items/search`) or for fields to embed (`index` as a list on `PUT /store/items`), and this server has no embeddings index configured (400).",
    solve: "Drop `query` (filter with `filter` and a `namespace_prefix` instead) and send `index` as null or false; Keel's store has no vector index yet.",
  },
  KEEL_ERR_STORE_NAMESPACE_INVALID: {
    description: "A store namespace is empty where one is required, or has a label that is empty, contains `.`, `:` or NUL, or (on a write) starts with the reserved root `langgraph` — LangGraph's own namespace rule (HTTP 400 with the label's pointer).",
    solve: "Use non-empty labels of other characters (e.g. `[\"memories\", \"user-1\"]`); the namespace of a `GET /store/items` is its labels joined with `.`.",
  },
  KEEL_ERR_HTTP_FORBIDDEN: {
    description: "The server's custom auth handler (`keel serve --auth`) refused an action that names no existing resource — a create, a search, a store put or a namespace listing (403). An action on an existing resource that the handler refuses answers 404 `KEEL_ERR_HTTP_NOT_FOUND` instead, as another user's resource does.",
    solve: "Ask for the permission the handler checks (the message names the event, e.g. `threads:create`), or act as a user who has it.",
  },
  KEEL_ERR_HTTP_NOT_IMPLEMENTED: {
    description: "The route is part of the LangGraph SDK but Keel does not serve it (501): the SDK's v2 thread protocol (`client.threads.stream`, `client.threads.joinStream`: `/threads/:tid/commands`, `/threads/:tid/stream/events`, `GET /threads/:tid/stream`).",
    solve: "Use the run-level streams instead: `client.runs.stream(threadId, assistantId, …)` to start and stream a run, `client.runs.joinStream(threadId, runId)` to rejoin one.",
  },
  KEEL_ERR_AUTH_HANDLER_INVALID: {
    description: "A custom auth handler is unusable: the module given to `keel serve --auth FILE[:EXPORT]` (or the `auth` port of a `--plugin`) exports neither a LangGraph `Auth` instance nor an object with an `authenticate(request)` function, or its `authenticate` returned neither a string nor an object with a string `identity` (500 for that request).",
    solve: "Export `new Auth().authenticate(…)` from `@langchain/langgraph-sdk/auth`, or `{ authenticate(request) { return { identity, permissions } } }`; see docs/http.md, \"Custom auth\".",
  },
  KEEL_ERR_SERVE_CONFIG: {
    description: "`keel serve` was started with an invalid combination of flags or environment (a non-loopback host without `KEEL_API_KEYS`, a malformed `KEEL_API_KEYS`, an unknown `--model` or `--db`).",
    solve: "Fix the flag or variable the message names; set `KEEL_API_KEYS=key:user,...` before binding a non-loopback host.",
  },
  KEEL_ERR_OPTIONAL_DEPENDENCY_MISSING: {
    description: "A feature needs a package Keel declares as an optional peer dependency, and it is not installed (a provider for `--model openai:…` / `anthropic:…`, the PostgreSQL drivers for `--db postgres://…`, ioredis for `--redis`).",
    solve: "Install the package the message names next to keel (e.g. `npm install @langchain/openai`), or drop the flag that needs it.",
  },
} as const satisfies Record<string, ErrorSpec>;

export type KeelErrorCode = keyof typeof ERRORS;

/**
 * The one error class, defined with the contracts (the bottom layer, so they can raise it
 * too) and typed here with every code of `ERRORS`.
 */
export type KeelError = KeelErrorBase<KeelErrorCode>;
export const KeelError: new (code: KeelErrorCode, message: string, options?: KeelErrorOptions) => KeelError = KeelErrorBase;

/** True for a KeelError from this or any other copy of the package. */
export function isKeelError(value: unknown): value is KeelError {
  return value instanceof KeelErrorBase || (value instanceof Error && (value as unknown as Record<symbol, unknown>)[KEEL_ERROR_BRAND] === true);
}

/** One problem found while composing; `CompositionError` carries every one of them. */
export interface CompositionProblem {
  code: KeelErrorCode;
  message: string;
  plugins: string[];
  hook?: string;
  channel?: string;
  cycle?: string[];
  fix?: string;
  pointer?: string;
}

export class CompositionError extends Error {
  readonly code = "KEEL_ERR_COMPOSE_REJECTED";
  readonly problems: readonly CompositionProblem[];

  constructor(problems: CompositionProblem[]) {
    const lines = problems.map((p) => `  ${p.code}: ${p.message}`);
    super(`The stack does not compose (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${lines.join("\n")}`);
    this.name = "CompositionError";
    this.problems = Object.freeze(problems.map((p) => Object.freeze({ ...p })));
  }
}
