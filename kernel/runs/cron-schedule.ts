/**
 * Cron expressions through `croner` (a maintained library; Keel parses none itself).
 * Five fields — minute, hour, day of month, month, day of week — as LangGraph's server
 * takes them, or a nickname (`@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`); a
 * sixth field is refused, because croner would read it as seconds first and LangGraph's
 * croniter as seconds last. Day of month and day of week combine with OR (classic cron).
 */
import { Cron } from "croner";
import { KeelError } from "../errors.js";

/** A validated schedule: its next tick strictly after an instant. */
export interface CronSchedule {
  /** The first tick strictly after `afterMs` that is not past `endTime`, or null. */
  nextAfter(afterMs: number, endTime?: string | null): string | null;
}

/**
 * Parse `schedule` in `timezone` (IANA; UTC when null). Throws `KEEL_ERR_CRON_SCHEDULE_INVALID`
 * naming the field (`pointer` `/schedule` or `/timezone`).
 */
export function parseCronSchedule(schedule: string, timezone: string | null = null): CronSchedule {
  if (timezone !== null && !isTimeZone(timezone)) {
    throw new KeelError("KEEL_ERR_CRON_SCHEDULE_INVALID", `\`${timezone}\` is not an IANA time zone (e.g. \`Europe/Paris\`, \`UTC\`)`, { pointer: "/timezone" });
  }
  let cron: Cron;
  try {
    cron = new Cron(schedule.trim(), { paused: true, mode: "5-part", timezone: timezone ?? "UTC", legacyMode: true });
  } catch (error) {
    throw new KeelError("KEEL_ERR_CRON_SCHEDULE_INVALID", `\`${schedule}\` is not a five-field cron expression (minute hour day-of-month month day-of-week): ${(error as Error).message}`, { pointer: "/schedule" });
  }
  return {
    nextAfter(afterMs, endTime) {
      const next = cron.nextRun(new Date(afterMs));
      if (!next) return null;
      if (endTime && next.getTime() > Date.parse(endTime)) return null;
      return next.toISOString();
    },
  };
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
