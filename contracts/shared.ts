import Type from "typebox";

export const HOOK_NAMES = ["beforeAgent", "beforeModel", "wrapModelCall", "afterModel", "wrapToolCall", "afterAgent"] as const;
export type HookName = (typeof HOOK_NAMES)[number];

export const PluginName = Type.String({ pattern: "^[a-z][a-z0-9-]*$", minLength: 1, maxLength: 100 });
export const SemVer = Type.String({
  pattern: "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?$",
});
export const Sha256Hex = Type.String({ pattern: "^[0-9a-f]{64}$" });
export const IsoDateTime = Type.String({ format: "date-time" });

export const Usage = Type.Object(
  {
    inputTokens: Type.Integer({ minimum: 0 }),
    outputTokens: Type.Integer({ minimum: 0 }),
    totalTokens: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
