export function elapsed(fromIso: string, toIso: string | null, nowMs: number): string {
  const end = toIso ? Date.parse(toIso) : nowMs;
  return duration(Math.max(0, end - Date.parse(fromIso)));
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function tokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

export function time(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(11, 23);
}

export function short(id: string): string {
  return id.length > 12 ? id.slice(0, 8) : id;
}

export function runHref(threadId: string, runId: string): string {
  return `#/runs/${encodeURIComponent(threadId)}/${encodeURIComponent(runId)}`;
}
