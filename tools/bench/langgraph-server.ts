/**
 * Child process of the stream benchmark: the LangGraph in-memory API server
 * (`@langchain/langgraph-api`, what `langgraph dev` runs) on loopback with the graph of
 * langgraph-graph.ts. Usage: `node langgraph-server.js PORT CWD`; prints `ready` once it serves.
 */
import { fileURLToPath } from "node:url";
import { startServer } from "@langchain/langgraph-api/server";

const [port, cwd] = process.argv.slice(2);
const graphFile = fileURLToPath(new URL("./langgraph-graph.js", import.meta.url));
await startServer({ port: Number(port), nWorkers: 1, host: "127.0.0.1", cwd: cwd!, graphs: { bench: `${graphFile}:graph` } });
process.stdout.write("ready\n");
