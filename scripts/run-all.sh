#!/usr/bin/env bash
# The main job of `make run`: every experiment timed on this machine, callchain's instruction
# counts (they carry the layer chains), and one HTML report of both, whose path it prints.
# A failed case still gets its report; Ctrl-C stops at once. Usage: run-all.sh BIN OUT
set -u
bin=$1 out=$2
mkdir -p "$out"
rm -f "$out/run.json" "$out/callchain-instructions.json" "$out/report.html"

"$bin/layertax" run --export-json "$out/run.json"
status=$?
[ "$status" -eq 130 ] && exit 130

if command -v valgrind >/dev/null 2>&1; then
  "$bin/layertax" run callchain --metric instructions --export-json "$out/callchain-instructions.json"
  counted=$?
  [ "$counted" -eq 130 ] && exit 130
  [ "$counted" -ne 0 ] && status=$counted
else
  echo "layertax: valgrind is not installed, so the report has no instruction counts or layer chains (apt-get install valgrind)"
fi

runs=()
for f in "$out/run.json" "$out/callchain-instructions.json"; do
  [ -f "$f" ] && runs+=("$f")
done
# A report that cannot be written fails the job too (its one line says why): the runs are saved,
# but what `make run` promises is the report.
if [ ${#runs[@]} -gt 0 ]; then
  if "$bin/layertax" report "${runs[@]}" --export-html "$out/report.html" >/dev/null; then
    echo "report: $(cd "$out" && pwd)/report.html"
  else
    reported=$?
    [ "$reported" -eq 130 ] && exit 130
    [ "$status" -eq 0 ] && status=$reported
  fi
fi
exit "$status"
