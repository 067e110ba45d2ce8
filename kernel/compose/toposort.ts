import toposort from "toposort";
import type { CompositionProblem } from "../errors.js";
import type { OrderingGraph } from "./graph.js";
import { tick } from "./messages.js";

export interface SortResult {
  /** Node ids in composed order. Without a cycle, every node; with one, the nodes Kahn could place. */
  readonly order: number[];
  /** Whether each node was placed (nodes on or after a cycle are not). */
  readonly placed: Uint8Array;
  /** One closed path per cyclic strongly connected component: `[a, b, ..., a]`. */
  readonly cycles: number[][];
}

/** Binary min-heap of node ids: the smallest id (first listed) among the ready nodes goes next. */
class MinHeap {
  private readonly items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  push(value: number): void {
    const a = this.items;
    a.push(value);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= value) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = value;
  }
  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

/** Stable Kahn, for the order only: among the nodes whose predecessors are all placed, the one listed first goes next. */
function stableKahn(graph: OrderingGraph): number[] {
  const n = graph.names.length;
  const indegree = new Uint32Array(n);
  for (const targets of graph.succ) for (const v of targets) indegree[v]!++;
  const ready = new MinHeap();
  for (let v = 0; v < n; v++) if (indegree[v] === 0) ready.push(v);
  const order: number[] = [];
  while (ready.size > 0) {
    const u = ready.pop();
    order.push(u);
    for (const v of graph.succ[u]!) if (--indegree[v]! === 0) ready.push(v);
  }
  return order;
}

/**
 * Whether the ordering constraints have a cycle: the `toposort` package decides. Its
 * depth-first search recurses, walking the node list from the end; listed in Kahn's order
 * (the nodes Kahn could not place first), every edge out of a node it starts from points
 * to a node it has already visited, so on an acyclic graph it recurses one level deep,
 * however many plugins the stack has.
 */
function hasCycle(graph: OrderingGraph, order: readonly number[], placed: Uint8Array): boolean {
  const unplaced = graph.names.map((_, id) => id).filter((id) => placed[id] === 0);
  const nodes = [...unplaced, ...order].map((id) => graph.names[id]!);
  const pairs: Array<[string, string]> = graph.edges.map((e) => [e.before, e.after]);
  try {
    toposort.array(nodes, pairs);
    return false;
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("Cyclic dependency")) return true;
    throw error;
  }
}

/** Tarjan's strongly connected components, iterative (stacks of thousands of plugins): where the cycles are. */
function cyclicComponents(graph: OrderingGraph): number[][] {
  const n = graph.names.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: Array<[number, number]> = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const [u, next] = frame;
      const targets = graph.succ[u]!;
      if (next < targets.length) {
        frame[1]++;
        const v = targets[next]!;
        if (index[v] === -1) {
          index[v] = low[v] = counter++;
          stack.push(v);
          onStack[v] = 1;
          work.push([v, 0]);
        } else if (onStack[v]) {
          low[u] = Math.min(low[u]!, index[v]!);
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[u]!);
      }
      if (low[u] === index[u]) {
        const component: number[] = [];
        let v: number;
        do {
          v = stack.pop()!;
          onStack[v] = 0;
          component.push(v);
        } while (v !== u);
        if (component.length > 1 || targets.includes(u)) components.push(component.sort((a, b) => a - b));
      }
    }
  }
  return components.sort((a, b) => a[0]! - b[0]!);
}

/** The shortest closed path from the component's first-listed node back to itself. */
function cyclePath(graph: OrderingGraph, component: readonly number[]): number[] {
  const start = component[0]!;
  const inside = new Set(component);
  const parent = new Map<number, number>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head]!;
    for (const v of graph.succ[u]!) {
      if (!inside.has(v)) continue;
      if (v === start) {
        const path = [start];
        for (let w = u; w !== start; w = parent.get(w)!) path.push(w);
        path.push(start);
        return path.slice(0, 1).concat(path.slice(1, -1).reverse(), [start]);
      }
      if (!parent.has(v)) {
        parent.set(v, u);
        queue.push(v);
      }
    }
  }
  return [start, start];
}

/**
 * Step 4 (order): Kahn's algorithm gives the stable order, the `toposort` package decides
 * whether there is a cycle, and only then the depth-first search finds each cycle's path.
 */
export function sortStable(graph: OrderingGraph): SortResult {
  const order = stableKahn(graph);
  const placed = new Uint8Array(graph.names.length);
  for (const v of order) placed[v] = 1;
  const cycles = hasCycle(graph, order, placed) ? cyclicComponents(graph).map((c) => cyclePath(graph, c)) : [];
  return { order, placed, cycles };
}

/** One `KEEL_ERR_COMPOSE_CYCLE` per cycle, naming the declaration behind each edge. */
export function reportCycles(graph: OrderingGraph, cycles: readonly number[][], problems: CompositionProblem[]): void {
  for (const path of cycles) {
    const cycle = path.map((id) => graph.names[id]!);
    const steps: string[] = [];
    for (let i = 0; i + 1 < path.length; i++) {
      const [u, v] = [path[i]!, path[i + 1]!];
      steps.push(`${tick(graph.names[u]!)} before ${tick(graph.names[v]!)} (${graph.reasons(u, v).join("; ")})`);
    }
    const plugins = [...new Set(cycle)].sort((a, b) => graph.ids.get(a)! - graph.ids.get(b)!);
    const self = path.length === 2;
    problems.push({
      code: "KEEL_ERR_COMPOSE_CYCLE",
      message: self
        ? `ordering cycle ${cycle.map(tick).join(" → ")}: ${tick(cycle[0]!)} must run before itself (${graph.reasons(path[0]!, path[0]!).join("; ")}); remove that declaration`
        : `ordering cycle ${cycle.map(tick).join(" → ")}: ${steps.join(", ")}; remove or reverse one of these declarations`,
      plugins,
      cycle,
      fix: self ? `remove the declaration that orders ${tick(cycle[0]!)} before itself` : "remove or reverse one of the listed edges",
    });
  }
}
