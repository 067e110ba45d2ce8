import { describe, expect, it } from "vitest";
import { criterionCommandProblem, matchRecordedCommand, splitShellCommand } from "../../../plugins/acceptance/index.js";

describe("splitShellCommand", () => {
  it("splits at operators outside quotes and separates assignments and redirections", () => {
    const split = splitShellCommand(`cd "my app" && FOO=1 npm test -- --grep 'a && b' > out.txt 2>&1; echo "x|y"`);
    expect(split.segments.map((s) => ({ words: s.words, assignments: s.assignments, redirections: s.redirections, before: s.before }))).toEqual([
      { words: ["cd", "my app"], assignments: [], redirections: [], before: undefined },
      { words: ["npm", "test", "--", "--grep", "a && b"], assignments: ["FOO=1"], redirections: [">out.txt", "2>&1"], before: "&&" },
      { words: ["echo", "x|y"], assignments: [], redirections: [], before: ";" },
    ]);
    expect(split.operators).toEqual(["&&", ";"]);
    expect(split.substitutions).toEqual([]);
  });

  it("records command substitutions, including inside double quotes and backticks", () => {
    const split = splitShellCommand('echo "$(npm test)" `make check` $(a $(b))');
    expect(split.substitutions).toEqual(["npm test", "make check", "a $(b)"]);
    expect(split.segments).toHaveLength(1);
  });

  it("keeps a trailing operator, flags grouping, here-documents and unbalanced quotes", () => {
    expect(splitShellCommand("npm test &").trailing).toBe("&");
    expect(splitShellCommand("(cd a && make)").grouping).toBe(true);
    expect(splitShellCommand("cat <<EOF\nhi\nEOF").heredoc).toBe(true);
    expect(splitShellCommand("echo 'oops").problem).toBe("unbalanced single quote");
    expect(splitShellCommand('echo "oops').problem).toBe("unbalanced double quote");
  });

  it("treats a quoted NAME=value as a word, not an assignment", () => {
    const [segment] = splitShellCommand(`"FOO=1" npm test`).segments;
    expect(segment!.assignments).toEqual([]);
    expect(segment!.words).toEqual(["FOO=1", "npm", "test"]);
  });
});

describe("matchRecordedCommand (criterion `npm test`)", () => {
  it.each([
    ["npm test", "match"],
    ["npm  'test'", "match"],
    ["cd x && npm test", "match"],
    ["cd app; set -e; npm test 2>&1", "match"],
    ["set -eo pipefail\ncd app && npm test", "match"],
    ["npm test < fixtures/in.txt", "match"],
    ["npm test # the suite", "match"],
    ["echo npm test", "none"],
    ["echo 'npm test' && ls", "none"],
    ["npm run test", "none"],
    ["npm test -- --watch", "none"],
  ])("%j → %s", (recorded, kind) => {
    expect(matchRecordedCommand("npm test", recorded).kind).toBe(kind);
  });

  it.each([
    ["FOO=1 npm test", "extra env assignment `FOO=1`"],
    ["npm test > out.txt", "output redirection `>out.txt`"],
    ["npm test 2> err.txt", "output redirection `2>err.txt`"],
    ["npm test &> all.txt", "output redirection `&>all.txt`"],
    ["npm test || true", "`||` control flow"],
    ["npm test &", "`&` runs it in the background"],
    ["make build & npm test", "`&` runs part of the command line in the background"],
    ["$(npm test)", "command substitution"],
    ["echo \"$(npm test)\"", "command substitution"],
    ["x=`npm test`", "command substitution"],
    ["echo '5 passed' && npm test", "a preceding segment may print into the output tail: `echo '5 passed'`"],
    ["npm install && npm test", "a preceding segment may print into the output tail: `npm install`"],
    ["export CI=1 && npm test", "a preceding segment sets the environment: `export CI=1`"],
    ["npm test | tee log.txt", "its output is piped into `tee log.txt`"],
    ["npm test; echo done", "it is followed by `echo done`"],
    ["npm test && echo ok", "it is followed by `echo ok`"],
    ["(cd a && npm test)", "`( … )` subshell"],
    ["set -x; npm test", "a preceding segment may print into the output tail: `set -x`"],
    ["set -o xtrace; npm test", "a preceding segment may print into the output tail: `set -o xtrace`"],
    ["cd -; npm test", "a preceding segment may print into the output tail: `cd -`"],
    ["npm test 'oops", "cannot be split reliably (unbalanced single quote)"],
  ])("%j is unprovable: %s", (recorded, reason) => {
    const result = matchRecordedCommand("npm test", recorded);
    expect(result.kind).toBe("unprovable");
    expect(result.kind === "unprovable" && result.reasons.join("\n")).toContain(reason);
  });

  it("matches a multi-segment criterion as the final segments of the record", () => {
    expect(matchRecordedCommand("cd app && make test", "cd app && make test").kind).toBe("match");
    expect(matchRecordedCommand("cd app && make test", "cd /w && cd app && make test").kind).toBe("match");
    expect(matchRecordedCommand("cd app && make test", "cd app; make test").kind).toBe("none");
    expect(matchRecordedCommand("cd app && make test", "make test").kind).toBe("none");
  });

  it("accepts the assignments the criterion itself names", () => {
    expect(matchRecordedCommand("CI=1 npm test", "CI=1 npm test").kind).toBe("match");
    expect(matchRecordedCommand("CI=1 npm test", "npm test").kind).toBe("none");
  });
});

describe("criterionCommandProblem", () => {
  it.each([
    ["npm test", undefined],
    ["cd app && npm test", undefined],
    ["CI=1 npm test 2>&1", undefined],
    ["npm test || true", "plain commands joined by `&&`"],
    ["npm test > out.txt", "plain commands joined by `&&`"],
    ["$(npm test)", "plain commands joined by `&&`"],
    ["npm test | cat", "plain commands joined by `&&`"],
    ["echo 'x", "cannot be split"],
  ])("%j", (command, problem) => {
    const found = criterionCommandProblem(command);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });
});
