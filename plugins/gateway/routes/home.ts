import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../../kernel/package-root.js";
import type { GatewayApp, GatewayContext } from "../context.js";
import { HttpError } from "../http-errors.js";

/** The run inspector's built bundle (committed; `npm run inspector:build` writes it). */
export const INSPECTOR_ASSETS: Readonly<Record<string, string>> = {
  "/inspector/app.js": "application/javascript; charset=utf-8",
  "/inspector/app.css": "text/css; charset=utf-8",
};

/** The routes of the page itself: no key needed (it holds no data; everything it shows comes through the keyed API routes). */
export const INSPECTOR_ROUTES = ["GET /", ...Object.keys(INSPECTOR_ASSETS).map((path) => `GET ${path}`)];

interface Asset {
  body: string;
  etag: string;
}

function loadAsset(path: string): Asset | undefined {
  try {
    const body = readFileSync(join(packageRoot(), "plugins", "gateway", path), "utf8");
    return { body, etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"` };
  } catch {
    return undefined;
  }
}

/**
 * `GET /`: the run inspector (a Preact page, `inspector/` in the repository): the caller's
 * runs live over the run-status feed, each run's timeline, delegation tree, model requests,
 * token chart, files and replay debugger. The HTML shell and its two assets are served
 * without a key; the page asks for one when an API route answers 401.
 */
export function registerHomeRoute(app: GatewayApp, ctx: GatewayContext): void {
  const assets = new Map<string, Asset | undefined>();
  for (const path of Object.keys(INSPECTOR_ASSETS)) assets.set(path, loadAsset(path));
  const version = assets.get("/inspector/app.js")?.etag.slice(1, 13) ?? "missing";
  const shell = renderShell(ctx.version, version);

  app.get("/", async (_request, reply) => {
    return reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").header("x-content-type-options", "nosniff").send(shell);
  });
  for (const [path, type] of Object.entries(INSPECTOR_ASSETS)) {
    app.get(path, async (request, reply) => {
      const asset = assets.get(path);
      if (!asset) throw new HttpError(404, "KEEL_ERR_HTTP_NOT_FOUND", `the inspector bundle \`${path}\` is missing from this install (run \`npm run inspector:build\`)`);
      reply.header("etag", asset.etag).header("cache-control", "no-cache").header("x-content-type-options", "nosniff");
      if (request.headers["if-none-match"] === asset.etag) return reply.code(304).send();
      return reply.type(type).send(asset.body);
    });
  }
}

export function renderShell(serverVersion: string, bundleVersion: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Keel run inspector</title>
<link rel="stylesheet" href="/inspector/app.css?v=${bundleVersion}">
<script type="module" src="/inspector/app.js?v=${bundleVersion}"></script>
</head><body>
<div id="app"><noscript>The Keel ${escapeHtml(serverVersion)} run inspector needs JavaScript. The API: LangGraph Platform thread/run routes (use <code>@langchain/langgraph-sdk</code>'s <code>Client</code>).</noscript></div>
</body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
