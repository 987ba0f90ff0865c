#!/usr/bin/env bash
# The build stage of every Containerfile here: a release build of one executable with the Swift runtime linked in
# statically, then the executable and its resource bundles (migrations, templates, the API document: SwiftPM puts
# them beside the executable as <Package>_<Target>.resources, where Bundle.module finds them) copied into OUT_DIR.
#   bash deploy/containers/build-product.sh PRODUCT OUT_DIR
# Run from the package root. Outside a container, deploy/containers/check runs it the same way.
set -euo pipefail
product=${1:?usage: build-product.sh PRODUCT OUT_DIR}
out=${2:?usage: build-product.sh PRODUCT OUT_DIR}
started=$SECONDS
swift build -c release --product "$product" --static-swift-stdlib
bin=$(swift build -c release --show-bin-path)
rm -rf "$out" && mkdir -p "$out"
cp "$bin/$product" "$out/"
# This product's own bundle (NutritionAI_<Product>.resources) and any of a dependency, but not the other products'
# bundles, which builds of those leave in the same folder.
for bundle in "$bin"/*.resources; do
  case "$(basename "$bundle")" in
    "NutritionAI_$product.resources") ;;
    NutritionAI_*) continue ;;
  esac
  [ -e "$bundle" ] && cp -R "$bundle" "$out/"
done
strip --strip-debug "$out/$product" 2>/dev/null || true
echo "built $product in $((SECONDS - started)) s: $(du -sh "$out" | cut -f1) in $out"
