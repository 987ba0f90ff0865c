# The format check of deploy/test, a ratchet: `swift format lint --strict` (rules in .swift-format) on every Swift file
# added or modified since the commit recorded in .swift-format-baseline, committed or not. Code is formatted as it is
# touched; files nobody changed are never reformatted wholesale. Sourced by deploy/test; `bash deploy/lib/format-check.sh`
# runs it alone.

# The Swift files added or modified since `baseline`: committed, staged, unstaged or new and untracked, one per line.
# Generated code (the typed client, made by swift-openapi-generator) is left as its generator writes it.
format_changed_files() { # format_changed_files BASELINE
  {
    git -C "$REPO_ROOT" diff --name-only --no-renames --diff-filter=AM "$1" -- '*.swift'
    git -C "$REPO_ROOT" ls-files --others --exclude-standard -- '*.swift'
  } | grep -v '^Clients/NutritionAIClient/Generated/' | sort -u
}

format_check() {
  local baseline_file="$REPO_ROOT/.swift-format-baseline" baseline files=() findings unformatted
  [ -f "$baseline_file" ] || fail "$baseline_file is missing; it names the commit the format check starts from"
  baseline=$(tr -d '[:space:]' <"$baseline_file")
  step "checking the format of Swift files changed since ${baseline:0:12} (.swift-format-baseline)"
  git -C "$REPO_ROOT" cat-file -e "$baseline^{commit}" 2>/dev/null \
    || fail "$baseline (.swift-format-baseline) is not a commit of this clone; a shallow clone needs more history"
  swift format --version >/dev/null 2>&1 || fail "swift format is missing; it ships with the Swift 6 toolchain"
  mapfile -t files < <(format_changed_files "$baseline")
  if [ ${#files[@]} -eq 0 ]; then ok "no Swift file changed"; return 0; fi
  if findings=$(cd "$REPO_ROOT" && swift format lint --strict --parallel "${files[@]}" 2>&1); then
    ok "${#files[@]} changed Swift files are formatted"
    return 0
  fi
  printf '%s\n' "$findings" | sed 's/^/    /'
  unformatted=$(printf '%s\n' "$findings" | sed -n 's/^\([^:]*\.swift\):[0-9]*:[0-9]*: .*/\1/p' | sort -u | paste -sd ' ' -)
  fail "changed Swift files differ from .swift-format (findings above); fix with: swift format format -i ${unformatted:-<the files above>}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
  format_check
fi
