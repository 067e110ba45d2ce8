#!/usr/bin/env bash
# The package must carry its own documentation: no product file may cite the design notes
# that live outside it. Exit 1 listing every citing line.
set -u
cd "$(dirname "$0")/.."
pattern='shared/|ARCHITECTURE|CONTRACTS\.md|PLUGINS\.md|INTERFACES\.md|STYLE\.md'
if hits=$(grep -rnE "$pattern" kernel plugins contracts tools docs README.md); then
  echo "These lines cite design notes outside the package; move what they point to into the package's own docs, or drop the citation:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "no citation of design notes outside the package"
