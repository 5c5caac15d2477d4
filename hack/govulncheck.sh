#!/usr/bin/env bash
# govulncheck.sh runs govulncheck over the modules this project ships and builds: the operator's (./...,
# the manager and cmd/kubectl-cjo) and bench's (bench/go.mod). It exits with govulncheck's status: 3 when
# code of the project calls a vulnerable symbol (of a module or of the Go standard library), 0 when none does.
#
# The database is, in this order:
#   - GOVULNDB, when set: a URL govulncheck takes with -db (https://vuln.go.dev, file:///path), or
#     "offline" for the snapshot below;
#   - https://vuln.go.dev, when it answers within 5 seconds: current data;
#   - else an offline database that hack/vulndb builds from the OSV entries of the Go vulnerability
#     database's source module golang.org/x/vulndb@VULNDB_VERSION (from the Go module proxy, about 25 MB),
#     cached in ${XDG_CACHE_HOME:-$HOME/.cache}/cronjob-operator/vulndb under the version and a hash of
#     hack/vulndb, so a warm machine builds it once. Its date is the snapshot's commit time.
# The database and its date are printed first. Before the scan, the check is shown able to fail: the module
# hack/vulndb/testdata/vulnerable, which calls gopkg.in/yaml.v2 v2.2.2's yaml.Unmarshal, must be reported
# affected by GO-2020-0036 with that database, or the script fails.
#
# Environment: GOVULNCHECK (the binary, required), VULNDB_VERSION (required), GOVULNDB (optional).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GOVULNCHECK=${GOVULNCHECK:?GOVULNCHECK must name the govulncheck binary}
[[ "${GOVULNCHECK}" == /* ]] || GOVULNCHECK="${PWD}/${GOVULNCHECK}"
VULNDB_VERSION=${VULNDB_VERSION:?VULNDB_VERSION must name a version of golang.org/x/vulndb}
LIVE=https://vuln.go.dev

# offline_db builds (once) the database of the snapshot and prints its file:// URL.
offline_db() {
  local key cache tmp work json dir info modified start
  key=$(cd "${ROOT}" && find hack/vulndb -maxdepth 1 -name '*.go' ! -name '*_test.go' | sort | xargs cat |
    sha256sum | cut -c1-16)
  cache="${XDG_CACHE_HOME:-${HOME}/.cache}/cronjob-operator/vulndb/${VULNDB_VERSION}-${key}"
  if [[ ! -f "${cache}/index/db.json" ]]; then
    start=$(date +%s)
    echo "govulncheck: building the offline database from golang.org/x/vulndb@${VULNDB_VERSION}" >&2
    # Outside any module, so that the download touches no go.mod or go.sum.
    work=$(mktemp -d)
    json=$(cd "${work}" && go mod download -json "golang.org/x/vulndb@${VULNDB_VERSION}")
    rmdir "${work}"
    dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<< "${json}")
    info=$(sed -n 's/^[[:space:]]*"Info": "\(.*\)",\{0,1\}$/\1/p' <<< "${json}")
    modified=$(sed -n 's/.*"Time": *"\([^"]*\)".*/\1/p' "${info}")
    [[ -d "${dir}/data/osv" && -n "${modified}" ]] || {
      echo "govulncheck: golang.org/x/vulndb@${VULNDB_VERSION} has no data/osv or no commit time" >&2
      return 1
    }
    tmp="${cache}.tmp.$$"
    rm -rf "${tmp}"
    (cd "${ROOT}" && go run ./hack/vulndb -osv "${dir}/data/osv" -out "${tmp}" -modified "${modified}") >&2
    rm -rf "${cache}" && mv "${tmp}" "${cache}"
    echo "govulncheck: built the offline database in $(( $(date +%s) - start )) s into ${cache}" >&2
  fi
  echo "file://${cache}"
}

choose_db() {
  case "${GOVULNDB:-}" in
    offline) offline_db ;;
    ?*) echo "${GOVULNDB}" ;;
    *)
      if command -v curl > /dev/null && curl -fsS --max-time 5 -o /dev/null "${LIVE}/index/db.json.gz" 2> /dev/null; then
        echo "${LIVE}"
      else
        echo "govulncheck: ${LIVE} does not answer; using the offline snapshot (set GOVULNDB to choose)" >&2
        offline_db
      fi
      ;;
  esac
}

db=$(choose_db)
if [[ "${db}" == file://* && -f "${db#file://}/index/db.json" ]]; then
  updated=$(sed -n 's/.*"modified":"\([^"]*\)".*/\1/p' "${db#file://}/index/db.json")
  case "${db}" in
    */cronjob-operator/vulndb/*) echo "govulncheck: database ${db}, the snapshot golang.org/x/vulndb@${VULNDB_VERSION}, updated ${updated}" ;;
    *) echo "govulncheck: database ${db}, updated ${updated}" ;;
  esac
else
  echo "govulncheck: database ${db} (its date: \"DB updated\" below)"
fi

# The check must be able to fail: a database or a scanner that reports nothing would pass every scan.
rc=0
out=$(cd "${ROOT}/hack/vulndb/testdata/vulnerable" && "${GOVULNCHECK}" -db "${db}" ./... 2>&1) || rc=$?
if [[ ${rc} -ne 3 ]] || ! grep -q 'GO-2020-0036' <<< "${out}"; then
  echo "${out}"
  echo "govulncheck: FAILED to report GO-2020-0036 in hack/vulndb/testdata/vulnerable (exit ${rc}, want 3): the database or govulncheck is broken" >&2
  exit 1
fi
echo "govulncheck: the check can fail: hack/vulndb/testdata/vulnerable is reported (GO-2020-0036)"

status=0
for module in . bench; do
  echo
  echo "govulncheck: module ${module}"
  rc=0
  (cd "${ROOT}/${module}" && "${GOVULNCHECK}" -db "${db}" -show version ./...) || rc=$?
  [[ ${rc} -eq 0 || ${status} -ne 0 ]] || status=${rc}
done
exit "${status}"
