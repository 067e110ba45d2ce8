import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../kernel/package-root.js";
import { parseOptionsOf, renderHelp } from "../../tools/cli/command-spec.js";
import { main } from "../../tools/cli/main.js";
import { renderMainHelp } from "../../tools/cli/main-help.js";
import { COMMAND_SPECS } from "../../tools/cli/specs.js";
import { renderCliDoc } from "../../tools/docs/cli-doc.js";
import { fakeIO } from "./fake-io.js";

const words = (name: string) => name.split(" ");

describe("keel <command> --help", () => {
  it("covers every command `keel --help` lists and every subcommand", () => {
    const io = fakeIO();
    return main(["--help"], io).then((code) => {
      expect(code).toBe(0);
      const listed = [...io.stdout().matchAll(/^ {2}keel (\S+(?: (?:build|check|diff))?)/gm)].map((m) => m[1]);
      expect(listed.sort()).toEqual(COMMAND_SPECS.map((s) => s.name).sort());
    });
  });

  for (const spec of COMMAND_SPECS) {
    for (const flag of ["--help", "-h"]) {
      it(`\`keel ${spec.name} ${flag}\` exits 0 and documents each flag the command parses, its default and allowed values`, async () => {
        const io = fakeIO();
        expect(await main([...words(spec.name), flag], io)).toBe(0);
        const help = io.stdout();
        expect(help).toBe(renderHelp(spec));
        // The flags come from the parser's own options: a flag the command accepts cannot be missing here.
        for (const [name, option] of Object.entries(parseOptionsOf(spec))) {
          expect(help).toMatch(new RegExp(`^ {2}(-${option.short}, )?--${name}\\b`, "m"));
          const documented = spec.flags[name];
          if (documented?.default !== undefined) expect(help).toContain(`default: ${documented.default}`);
          if (documented?.allowed !== undefined) expect(help).toContain(`one of: ${documented.allowed.join(", ")}`);
        }
        for (const section of ["Options:", "Output:", "Exit codes:", "Examples:"]) expect(help).toContain(section);
        for (const [code] of spec.exitCodes) expect(help).toMatch(new RegExp(`^ {2}${code} `, "m"));
        expect(io.stderr()).toBe("");
      });
    }

    it(`\`keel ${spec.name}\` parses every flag its definition documents`, async () => {
      // Three stray arguments make every command stop with a usage error right after parsing.
      const flags = Object.entries(spec.flags).flatMap(([name, flag]) =>
        flag.value === undefined && flag.allowed === undefined ? [`--${name}`] : [`--${name}`, flag.allowed?.[0] ?? "x"],
      );
      const io = fakeIO();
      expect(await main([...words(spec.name), ...flags, "stray1", "stray2", "stray3"], io)).toBe(2);
      expect(io.stderr()).toContain("KEEL_ERR_CLI_USAGE");
      expect(io.stderr()).not.toMatch(/Unknown option|must be one of/);
    });

    it(`\`keel ${spec.name}\` refuses a flag its definition does not have (exit 2)`, async () => {
      const io = fakeIO();
      expect(await main([...words(spec.name), "--not-a-flag"], io)).toBe(2);
      expect(io.stderr()).toContain("KEEL_ERR_CLI_USAGE");
      expect(io.stderr()).toContain("--not-a-flag");
    });
  }

  it("`keel help COMMAND` is `keel COMMAND --help`", async () => {
    const io = fakeIO();
    expect(await main(["help", "run"], io)).toBe(0);
    expect(io.stdout()).toBe(renderHelp(COMMAND_SPECS.find((s) => s.name === "run")!));
  });

  it("`keel help NOT_A_COMMAND` is a usage error (exit 2), like `keel NOT_A_COMMAND`", async () => {
    const io = fakeIO();
    expect(await main(["help", "frob"], io)).toBe(2);
    expect(io.stderr()).toMatch(/^KEEL_ERR_CLI_USAGE: unknown command `frob`/);
    expect(io.stdout()).toBe("");
  });

  it("`keel` without a command exits 2 with one line on stderr and the help on stdout", async () => {
    const io = fakeIO();
    expect(await main([], io)).toBe(2);
    expect(io.stderr().trim().split("\n")).toEqual([expect.stringMatching(/^KEEL_ERR_CLI_USAGE: no command given; the commands are compose, run, /)]);
    expect(io.stdout()).toBe(renderMainHelp());
  });

  it("`keel --json` without a command prints only the error document on stdout (exit 2)", async () => {
    for (const argv of [["--json"], ["--json", "run"], ["frob", "--json"]]) {
      const io = fakeIO();
      expect(await main(argv, io)).toBe(2);
      const doc = JSON.parse(io.stdout()) as { ok: boolean; error: { code: string; message: string } };
      expect(doc).toEqual({ ok: false, error: { code: "KEEL_ERR_CLI_USAGE", message: expect.any(String) } });
      expect(io.stderr()).toBe(`KEEL_ERR_CLI_USAGE: ${doc.error.message}`);
    }
  });

  it("`keel contracts --help` prints both subcommands' help", async () => {
    const io = fakeIO();
    expect(await main(["contracts", "--help"], io)).toBe(0);
    expect(io.stdout()).toContain("usage: keel contracts diff");
    expect(io.stdout()).toContain("usage: keel contracts check");
    expect(io.stdout()).toContain("--migrations MODULE");
  });

  it("keeps `keel serve --help`'s provider environment and retry note", async () => {
    const io = fakeIO();
    expect(await main(["serve", "--help"], io)).toBe(0);
    for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "KEEL_PROVIDER_IDLE_MS", "KEEL_API_KEYS", "maxRetries: 0"]) {
      expect(io.stdout()).toContain(name);
    }
  });
});

describe("keel --version", () => {
  const version = (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;

  for (const flag of ["--version", "-V"]) {
    it(`\`keel ${flag}\` prints package.json's version and exits 0`, async () => {
      const io = fakeIO();
      expect(await main([flag], io)).toBe(0);
      expect(io.stdout()).toBe(version);
    });
  }

  it("`keel --version --json` prints { version }", async () => {
    const io = fakeIO();
    expect(await main(["--version", "--json"], io)).toBe(0);
    expect(JSON.parse(io.stdout())).toEqual({ version });
  });
});

describe("usage errors list the allowed values", () => {
  /** Exit 2 and `{ ok: false, error: { code, message } }` exactly (no new fields in the error document). */
  const usageError = async (argv: string[]) => {
    const io = fakeIO();
    expect(await main([...argv, "--json"], io)).toBe(2);
    const doc = JSON.parse(io.stdout()) as { ok: boolean; error: { code: string; message: string } };
    expect(doc).toEqual({ ok: false, error: { code: "KEEL_ERR_CLI_USAGE", message: expect.any(String) } });
    expect(io.stderr()).toBe(`KEEL_ERR_CLI_USAGE: ${doc.error.message}`);
    return doc.error.message;
  };

  it("an unknown command lists the commands", async () => {
    expect(await usageError(["frobnicate"])).toBe(
      "unknown command `frobnicate`; the commands are compose, run, replay, watch, schemas, docs, validate, plugin, contracts, serve; run `keel --help`",
    );
  });

  it("an unknown --fail-on value lists the levels", async () => {
    expect(await usageError(["run", "any.scenario.json", "--fail-on", "cancelled"])).toBe("--fail-on must be one of partial, failed, got `cancelled`");
  });

  it("an unknown --mode value lists the modes (contracts diff and check)", async () => {
    for (const argv of [["contracts", "diff", "a.json", "b.json", "--mode", "sideways"], ["contracts", "check", "--base", ".", "--mode", "sideways"]]) {
      expect(await usageError(argv)).toBe("--mode must be one of backward, forward, full, got `sideways`");
    }
  });

  it("an unknown or missing subcommand lists the subcommands", async () => {
    expect(await usageError(["contracts", "merge"])).toMatch(/^unknown subcommand `merge` of `keel contracts`; one of diff, check; usage: /);
    expect(await usageError(["plugin", "lint", "x.mjs"])).toMatch(/^unknown subcommand `lint` of `keel plugin`; one of check; usage: keel plugin check/);
    expect(await usageError(["schemas", "rebuild"])).toMatch(/^unknown subcommand `rebuild` of `keel schemas`; one of build; usage: keel schemas build/);
    expect(await usageError(["docs"])).toMatch(/^missing subcommand \(one of build\); usage: keel docs build/);
  });

  it("`keel serve --bash` refuses anything but on and off before starting anything", async () => {
    const io = fakeIO();
    expect(await main(["serve", "--bash", "maybe"], io)).toBe(2);
    expect(io.stderr()).toBe("KEEL_ERR_CLI_USAGE: --bash must be one of on, off, got `maybe`");
  });
});

describe("docs/cli.md", () => {
  it("is the help of every command, as `keel docs build` generates it", () => {
    const committed = readFileSync(join(packageRoot(), "docs/cli.md"), "utf8");
    expect(committed).toBe(renderCliDoc());
    for (const spec of COMMAND_SPECS) expect(committed).toContain(renderHelp(spec));
  });
});
