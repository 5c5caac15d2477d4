#!/usr/bin/env bash
# mutation.sh runs gremlins (mutation testing) over the packages with the unit layer, one package after the
# other, and writes each package's log and machine-readable result to bin/mutation/. Settings are in
# test/mutation/gremlins.yaml; figures and the analysis of the surviving mutants in test/mutation/README.md.
#
# Usage: GREMLINS=bin/gremlins hack/mutation.sh [PACKAGE_DIR...]   (default: ./controllers ./api)
#        MUTATION_SUMMARY_ONLY=1 hack/mutation.sh NAME...   (only the summary of bin/mutation/NAME.json)
set -o errexit -o nounset -o pipefail

cd "$(dirname "$0")/.."
gremlins=${GREMLINS:-bin/gremlins}
out=${MUTATION_OUTPUT:-bin/mutation}
config=test/mutation/gremlins.yaml
mkdir -p "${out}"
[[ $# -gt 0 ]] || set -- ./controllers ./api

# gremlins sets each mutant's timeout from the duration of its coverage run: that run must compile and
# test for real, not come from Go's test cache, or every mutant times out.
export GOFLAGS="${GOFLAGS:-} -count=1"

status=0
for dir in "$@"; do
  [[ -z "${MUTATION_SUMMARY_ONLY:-}" ]] || break
  name=$(echo "${dir#./}" | tr '/' '-')
  echo "mutation: gremlins unleash ${dir} (log: ${out}/${name}.log)"
  start=$(date +%s)
  # gremlins exits non-zero only for a threshold (none is set) or an error.
  "${gremlins}" unleash --config "${config}" --output "${out}/${name}.json" "${dir}" 2>&1 | tee "${out}/${name}.log" || status=1
  echo "mutation: ${dir} took $(( $(date +%s) - start )) s"
done
# The summary: per package, the count of each status and gremlins' two scores (in percent).
for dir in "$@"; do
  name=$(echo "${dir#./}" | tr '/' '-')
  [[ -s "${out}/${name}.json" ]] || { echo "mutation: ${dir}: no result (gremlins found no mutants, or failed)"; continue; }
  jq -r --arg dir "${dir}" '
    [.files[].mutations[].status] as $s
    | def n($x): [$s[] | select(. == $x)] | length;
    "mutation: \($dir): killed \(n("KILLED")), lived \(n("LIVED")), timed out \(n("TIMED OUT")), not covered \(n("NOT COVERED")), not viable \(n("NOT VIABLE")); efficacy \(.test_efficacy * 100 | round / 100) %, mutant coverage \(.mutations_coverage * 100 | round / 100) %"' \
    "${out}/${name}.json"
  jq -r '.files[] | .file_name as $f | .mutations[] | select(.status == "LIVED" or .status == "NOT COVERED" or .status == "TIMED OUT") | "  \($f):\(.line):\(.column) \(.type) \(.status)"' "${out}/${name}.json" | sort -V
done
exit "${status}"
