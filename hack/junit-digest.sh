#!/usr/bin/env bash
# junit-digest.sh prints, for each failed test case of a JUnit report (Ginkgo's --junit-report, go-junit
# style), its name and the first lines of its failure message: a digest short enough to stand at the end of
# a long CI log, where a reader who sees only the log's tail still learns what failed and why.
#
# Usage: hack/junit-digest.sh REPORT.xml [CASES [LINES]]
#   CASES  failed test cases to print (default 3; the count of the others is given)
#   LINES  lines of each failure message (default 6), each cut to 400 characters
# Prints nothing when the report is missing or has no failure; always exits 0.
set -o nounset -o pipefail

report=${1:?usage: hack/junit-digest.sh REPORT.xml [CASES [LINES]]}
cases=${2:-3}
lines=${3:-6}
[[ -r "${report}" ]] || exit 0

# A failure element (or an error element: Ginkgo's for an interrupted, timed-out or panicked spec) follows
# its testcase's start tag; the message attribute holds the whole message, its line breaks escaped as &#xA;.
awk -v cases="${cases}" -v lines="${lines}" '
  function unescape(s) {
    gsub(/&#xA;/, "\n", s); gsub(/&#x9;/, "\t", s); gsub(/&#xD;/, "", s); gsub(/&#34;/, "\"", s); gsub(/&#39;/, "\047", s)
    gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&apos;/, "\047", s)
    gsub(/&amp;/, "\\&", s)
    return s
  }
  /<testcase / {
    name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name)
  }
  /<(failure|error) message="/ {
    failed++
    if (failed > cases) next
    msg = $0; sub(/.*<(failure|error) message="/, "", msg); sub(/".*/, "", msg)
    printf "FAILED: %s\n", substr(unescape(name), 1, 240)
    n = split(unescape(msg), parts, "\n")
    shown = 0
    for (i = 1; i <= n && shown < lines; i++) {
      if (parts[i] ~ /^[[:space:]]*$/) continue
      printf "    %s\n", substr(parts[i], 1, 400)
      shown++
    }
  }
  END { if (failed > cases) printf "... and %d more failed (the report: %s)\n", failed - cases, FILENAME }
' "${report}"
exit 0
