import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import "./app.css";
import { AuthRequired, apiKey, getJson, setApiKey } from "./api.js";
import { RunsPage } from "./runs-page.js";
import { RunPage } from "./run-page.js";
import type { Info } from "./types.js";

type Route = { page: "runs" } | { page: "run"; threadId: string; runId: string };

function parseRoute(hash: string): Route {
  const match = /^#\/runs\/([^/]+)\/([^/]+)$/.exec(hash);
  return match ? { page: "run", threadId: decodeURIComponent(match[1]!), runId: decodeURIComponent(match[2]!) } : { page: "runs" };
}

function KeyForm(props: { message: string; onKey: (key: string) => void }) {
  const [key, setKey] = useState("");
  return (
    <form
      class="key-form"
      data-testid="key-form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onKey(key.trim());
      }}
    >
      <h2>API key</h2>
      <p>This server needs an API key ({props.message}). It is kept in this tab's session storage and sent as the <code>x-api-key</code> header.</p>
      <input type="password" autocomplete="off" data-testid="api-key" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />{" "}
      <button type="submit">Use this key</button>
    </form>
  );
}

function App() {
  const [route, setRoute] = useState<Route>(parseRoute(location.hash));
  const [info, setInfo] = useState<Info | null>(null);
  const [auth, setAuth] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    getJson<Info>("/info").then(setInfo, () => undefined);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  const onAuth = (error: AuthRequired) => setAuth(apiKey() ? `the key was refused: ${error.message}` : error.message);
  return (
    <>
      <header>
        <a href="#/" class="brand">
          Keel run inspector
        </a>
        <span class="muted">
          {info ? ` ${info.version} · assistants: ${info.stacks.join(", ")}${info.model ? ` · model: ${info.model}` : ""}` : ""}
        </span>
        {apiKey() && !auth && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setApiKey(null);
              setAuth("signed out");
            }}
          >
            forget key
          </button>
        )}
      </header>
      <main>
        {auth !== null ? (
          <KeyForm
            message={auth}
            onKey={(key) => {
              setApiKey(key);
              setAuth(null);
              setGeneration(generation + 1);
            }}
          />
        ) : route.page === "run" ? (
          <RunPage key={`${generation}:${route.threadId}/${route.runId}`} threadId={route.threadId} runId={route.runId} onAuth={onAuth} />
        ) : (
          <RunsPage key={generation} info={info} onAuth={onAuth} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
