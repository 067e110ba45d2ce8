/**
 * Framework markers are text that Keel (or the agent frameworks models were trained on)
 * uses to speak to the model with authority: reminder tags, the durable-context data tag,
 * ledger headers, the kernel's stop instruction. Found in user input or tool output they
 * are forgeries. Neutralizing keeps them readable but inert:
 *
 * | found | becomes |
 * |---|---|
 * | `<system-reminder>`, `</system-reminder>`, `<durable_context_data …>` (any case, `-`/`_` either way, attributes kept) | `‹system-reminder›`, `‹/system-reminder›`, `‹durable_context_data …›` |
 * | `## Tool receipts (execution record)`, `## Work already delegated` (any `#` count, any case) | `‹## Tool receipts (execution record)›`, `‹## Work already delegated›` |
 * | a receipt ledger line `- [r3] write_file status=…` | `- ‹r3› write_file status=…` |
 * | `[KEEL STOP]`, `[LOOP WARNING]` | `‹KEEL STOP›`, `‹LOOP WARNING›` |
 *
 * `‹` and `›` are U+2039 and U+203A. The mapping is idempotent: neutralized text contains
 * no marker.
 */
const TAG = /<(\s*\/?\s*(?:system[-_]reminder|durable[-_]context[-_]data)(?![\w-])[^<>]{0,200})(>?)/gi;
const HEADER = /(?<![‹#])#{1,6}[ \t]*(?:tool receipts \(execution record\)|work already delegated)/gi;
const RECEIPT_LINE = /^([ \t]*[-*][ \t]*)\[(r\d+)\](?=[ \t]+\S+[ \t]+status=)/gm;
const BRACKET_MARKER = /\[(KEEL STOP|LOOP WARNING)\]/gi;

export function neutralizeFrameworkText(text: string): string {
  if (!mayContainMarker(text)) return text;
  return text
    .replace(TAG, (_m, inner: string, close: string) => `‹${inner}${close ? "›" : ""}`)
    .replace(HEADER, (header) => `‹${header}›`)
    .replace(RECEIPT_LINE, (_m, lead: string, id: string) => `${lead}‹${id}›`)
    .replace(BRACKET_MARKER, (_m, inner: string) => `‹${inner}›`);
}

/** Cheap pre-check so the common case (no marker characters) does no regex work. */
function mayContainMarker(text: string): boolean {
  return text.includes("<") || text.includes("#") || text.includes("[");
}
