# The deploy artefacts' check of deploy/test (docs/DEPLOYING.md), seconds long; `bash deploy/lib/artefacts-check.sh` runs
# it alone. Not the Containerfiles: building them is deploy/containers/check, a long run of its own.
# - Kubernetes: deploy/k8s/ must be what deploy/k8s/generate writes, and every object in it must be valid against the
#   schemas of Kubernetes $K8S_VERSION, strictly (an unknown or misspelt field is an error), offline:
#   kubernetes-validate from PyPI bundles the schemas.
# - systemd: `systemd-analyze verify` of the unit template for every instance, its drop-ins included; any finding
#   (an unknown key is only a warning to systemd) fails.

KUBERNETES_VALIDATE_VERSION="1.34.1"
# The oldest Kubernetes the manifests are for: the preStop `sleep` action is on by default from 1.30.
K8S_VERSION="1.33.0"

k8s_validator_install() { # k8s_validator_install DIR
  local KUBERNETES_VALIDATE_DIR=$1
  if PYTHONPATH="$KUBERNETES_VALIDATE_DIR" python3 -c "import sys, importlib.metadata as m; sys.exit(m.version('kubernetes-validate') != '$KUBERNETES_VALIDATE_VERSION')" 2>/dev/null; then
    return 0
  fi
  say "installing kubernetes-validate $KUBERNETES_VALIDATE_VERSION from PyPI into $KUBERNETES_VALIDATE_DIR"
  mkdir -p "$TOOLS_DIR"
  # --target keeps it out of the system's Python; --upgrade replaces another version left there.
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --upgrade --target "$KUBERNETES_VALIDATE_DIR" \
    "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" || fail "pip could not install kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
}

k8s_check() {
  local dir="$REPO_ROOT/deploy/k8s" scratch files=() file output
  local KUBERNETES_VALIDATE_DIR="${NUTRITION_KUBERNETES_VALIDATE_DIR:-$TOOLS_DIR/kubernetes-validate-pkg}"
  step "checking the Kubernetes manifests (deploy/k8s) against Kubernetes ${K8S_VERSION%.0}, strictly, offline"
  k8s_validator_install "$KUBERNETES_VALIDATE_DIR"
  scratch=$(mktemp -d)
  python3 "$dir/generate" "$scratch" >/dev/null || { rm -rf "$scratch"; fail "deploy/k8s/generate failed"; }
  if ! output=$(diff -r -x generate "$scratch" "$dir" 2>&1); then
    rm -rf "$scratch"
    printf '%s\n' "$output" | head -n 20 | sed 's/^/    /'
    fail "deploy/k8s differs from what deploy/k8s/generate writes (above); run deploy/k8s/generate and commit the result"
  fi
  rm -rf "$scratch"
  # kustomization.yaml is kustomize's file, not an object of the cluster.
  for file in "$dir"/*.yaml; do [ "$(basename "$file")" = kustomization.yaml ] || files+=("$file"); done
  if ! output=$(PYTHONPATH="$KUBERNETES_VALIDATE_DIR" python3 -m kubernetes_validate --kubernetes-version "$K8S_VERSION" --strict \
      --quiet "${files[@]}" 2>&1); then
    printf '%s\n' "$output" | sed 's/^/    /'
    fail "a Kubernetes manifest is not valid for Kubernetes $K8S_VERSION (above); fix deploy/k8s/generate and run it"
  fi
  ok "${#files[@]} files as generated, every object valid (kubernetes-validate $KUBERNETES_VALIDATE_VERSION, strict)"
}

systemd_check() {
  local dir="$REPO_ROOT/deploy/systemd" instance findings=""
  step "checking the systemd unit template (deploy/systemd) with systemd-analyze verify"
  command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing; it ships with Debian's systemd package"
  for instance in auth meals metrics trends sharing foods gateway; do
    # The unit path is the folder itself, so the template and its instances' drop-ins are read from the tree.
    findings+=$(SYSTEMD_UNIT_PATH="$dir:" systemd-analyze verify "nutritionai@$instance.service" 2>&1) \
      || findings+=$'\n'"nutritionai@$instance.service: systemd-analyze verify failed"
  done
  if [ -n "$findings" ]; then
    printf '%s\n' "$findings" | sort -u | sed 's/^/    /'
    fail "the systemd unit has findings (above)"
  fi
  ok "nutritionai@.service verifies for all seven instances, drop-ins included"
}

artefacts_check() {
  k8s_check
  systemd_check
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
  artefacts_check
fi
