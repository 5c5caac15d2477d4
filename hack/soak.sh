#!/usr/bin/env bash
# soak.sh runs the failure specs at volume and the fuzz targets for long (make soak; test/soak/README.md
# says what each phase does and holds the committed figures).
#
# Phases, in order, as named in SOAK_PHASES (default "envtest fuzz kind"):
#   envtest  the envtest soak spec (test/integration, Label("soak")): SOAK_ENVTEST_KILLS leader kills
#            (default 50), by turns graceful and hard, with the JobOracle counting runs;
#   fuzz     every fuzz target of the module (func Fuzz* in a _test.go file), each to SOAK_FUZZ_EXECS
#            executions (default 10000000) with SOAK_FUZZ_PARALLEL workers (default 1, to leave the other
#            cores alone); a crasher fails the phase and is left under <package>/testdata/fuzz/ to commit;
#   kind     the kind soak spec (e2e/, Label("soak")) through make e2e: SOAK_KIND_KILLS kills of the leader
#            pod (default 30), SOAK_KIND_HARD_KILLS of them hard (default 10). Needs root and Docker.
# Results go to SOAK_RESULTS_DIR (default bin/soak): envtest.{json,md}, fuzz.{json,md}, kind.{json,md} and
# each phase's log; the markdown summaries are printed at the end. The first failed phase stops the run.
#
# Environment: ENVTEST_ASSETS (the envtest binaries; make soak sets it), MAKE (default make).
set -o errexit -o nounset -o pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

SOAK_PHASES=${SOAK_PHASES:-envtest fuzz kind}
SOAK_RESULTS_DIR=$(mkdir -p "${SOAK_RESULTS_DIR:-bin/soak}" && cd "${SOAK_RESULTS_DIR:-bin/soak}" && pwd)
export SOAK_RESULTS_DIR
export SOAK_ENVTEST_KILLS=${SOAK_ENVTEST_KILLS:-50}
export SOAK_KIND_KILLS=${SOAK_KIND_KILLS:-30}
export SOAK_KIND_HARD_KILLS=${SOAK_KIND_HARD_KILLS:-10}
SOAK_FUZZ_EXECS=${SOAK_FUZZ_EXECS:-10000000}
SOAK_FUZZ_PARALLEL=${SOAK_FUZZ_PARALLEL:-1}
MAKE=${MAKE:-make}

log() { echo "=== soak: $*" >&2; }

soak_envtest() {
  : "${ENVTEST_ASSETS:?ENVTEST_ASSETS must name the envtest binaries (make soak sets it)}"
  rm -f "${SOAK_RESULTS_DIR}"/envtest.{json,md}
  log "envtest: ${SOAK_ENVTEST_KILLS} leader kills"
  # The suite's default label filter excludes soak; name it to run it alone.
  KUBEBUILDER_ASSETS="${ENVTEST_ASSETS}" go test ./test/integration/ -count=1 -timeout 90m -v \
    -args -ginkgo.label-filter=soak -ginkgo.v 2>&1 | tee "${SOAK_RESULTS_DIR}/envtest.log"
}

# fuzz_targets prints "<package dir> <target>" for every fuzz target of the module.
fuzz_targets() {
  git ls-files '*_test.go' | xargs grep -H -o -E '^func Fuzz[A-Za-z0-9_]*\(' |
    sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|./\1 \2|; s|^[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|. \1|' |
    sort -u
}

soak_fuzz() {
  local pkg target out rc json=() md=()
  rm -f "${SOAK_RESULTS_DIR}"/fuzz.{json,md}
  while read -r pkg target; do
    out="${SOAK_RESULTS_DIR}/fuzz-${target}.log"
    log "fuzz: ${target} in ${pkg} to ${SOAK_FUZZ_EXECS} executions, ${SOAK_FUZZ_PARALLEL} worker(s)"
    local before start
    before=$(git status --porcelain --untracked-files=all -- "${pkg}/testdata/fuzz" | wc -l)
    start=$(date +%s)
    rc=0
    go test "${pkg}" -run '^$' -fuzz "^${target}\$" -fuzztime "${SOAK_FUZZ_EXECS}x" -parallel "${SOAK_FUZZ_PARALLEL}" \
      > "${out}" 2>&1 || rc=$?
    local secs=$(( $(date +%s) - start ))
    local crashers=$(( $(git status --porcelain --untracked-files=all -- "${pkg}/testdata/fuzz" | wc -l) - before ))
    local execs
    execs=$(fuzz_execs "${out}")
    tail -n 3 "${out}" >&2
    json+=("{\"target\": \"${target}\", \"package\": \"${pkg}\", \"execs\": ${execs}, \"seconds\": ${secs}, \"workers\": ${SOAK_FUZZ_PARALLEL}, \"newCrashers\": ${crashers}, \"exitCode\": ${rc}}")
    md+=("| ${target} | ${execs} | ${secs} s | ${SOAK_FUZZ_PARALLEL} | ${crashers} | ${rc} |")
    if [[ ${rc} -ne 0 ]]; then
      log "fuzz: ${target} failed (exit ${rc}); a crasher is under ${pkg}/testdata/fuzz/${target}/: commit it and report it"
      break
    fi
  done < <(fuzz_targets)
  local IFS=,
  echo "[${json[*]}]" > "${SOAK_RESULTS_DIR}/fuzz.json"
  {
    echo "### fuzzing, $(date -u +%FT%TZ)"
    echo
    echo "| target | executions | wall time | workers | new crashers | exit code |"
    echo "|---|---:|---:|---:|---:|---:|"
    printf '%s\n' "${md[@]}"
  } > "${SOAK_RESULTS_DIR}/fuzz.md"
  [[ ${rc} -eq 0 ]]
}

# fuzz_execs prints the executions of the last progress line of a fuzz log ("fuzz: elapsed: 3s, execs:
# 12345 (...)"), 0 if there is none.
fuzz_execs() {
  local n
  n=$(grep -o -E 'execs: [0-9]+' "$1" | tail -n 1 | grep -o -E '[0-9]+') || true
  echo "${n:-0}"
}

soak_kind() {
  rm -f "${SOAK_RESULTS_DIR}"/kind.{json,md}
  log "kind: ${SOAK_KIND_KILLS} leader pod kills, ${SOAK_KIND_HARD_KILLS} of them hard"
  # SOAK_RESULTS_DIR on the command line: a relative one given to the outer make would override the
  # exported absolute path in make e2e, and the suite runs in e2e/.
  "${MAKE}" e2e E2E_PROCS=1 E2E_ARGS="--label-filter=soak" SOAK_RESULTS_DIR="${SOAK_RESULTS_DIR}" \
    SOAK_KIND_KILLS="${SOAK_KIND_KILLS}" SOAK_KIND_HARD_KILLS="${SOAK_KIND_HARD_KILLS}" 2>&1 | tee "${SOAK_RESULTS_DIR}/kind.log"
}

summary() {
  local rc=$? f
  echo
  for f in envtest fuzz kind; do
    [[ -f "${SOAK_RESULTS_DIR}/${f}.md" ]] && { cat "${SOAK_RESULTS_DIR}/${f}.md"; echo; }
  done
  log "results in ${SOAK_RESULTS_DIR}; $([[ ${rc} -eq 0 ]] && echo passed || echo "FAILED (${rc})")"
}
trap summary EXIT

for phase in ${SOAK_PHASES}; do
  case "${phase}" in
    envtest | fuzz | kind) start=$(date +%s); "soak_${phase}"; log "${phase} done in $(( $(date +%s) - start )) s" ;;
    *) echo "unknown soak phase ${phase}: want envtest, fuzz or kind" >&2; exit 2 ;;
  esac
done
