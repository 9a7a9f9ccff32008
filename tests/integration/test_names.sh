# Names out of the box: a tracerd without a tool rules file names processes by the rules built
# into it (etc/tools.rules). A python script started as `/usr/bin/python3 /usr/bin/cwltool`, a
# python and a perl script run by their #! line, and `python3 -m json.tool` are named by the
# script or module, not by the interpreter. A ToolRules file that goes missing on SIGHUP is
# named in the log and the built-in rules stay in force. With Debian's cwltool installed, a real
# 2-step CWL workflow (sort, then gzip) under `tracerctl run` shows cwltool, sort and gzip as
# tools; without it, that part is skipped with a message.
# lane: daemon cpu: 0.3
. "$(dirname "$0")/lib.sh"
write_config
if [ -e /etc/tracer/tools.rules ]; then # not "no rules file": point ToolRules at none instead
  sed -i "s|^ToolRules = .*|ToolRules = $T/none/tools.rules|" "$T/tracer.conf"
else
  sed -i '/^ToolRules = /d' "$T/tracer.conf"
fi
B=$T/bin
mkdir -p "$B"
printf '#!/usr/bin/python3\nimport sys\nsys.exit(0)\n' > "$B/pytool"
printf '#!/usr/bin/env python3\nimport sys\nsys.exit(0)\n' > "$B/pyenvtool"
printf '#!/usr/bin/perl -w\nexit 0;\n' > "$B/pltool"
printf '{"a": [1, 2]}\n' > "$B/in.json"
CWLTOOL=/usr/bin/cwltool
[ -x "$CWLTOOL" ] || { # a stand-in with the same #! line as Debian's
  CWLTOOL=$B/cwltool
  printf '#!/usr/bin/python3\nimport sys\nsys.exit(0)\n' > "$CWLTOOL"
}
chmod 755 "$B"/*tool "$CWLTOOL"
start_daemon || { fail "tracerd started"; finish; exit 1; }
check "no rules file: the built-in rules are in force ($(grep -m1 -o 'agent_load_rules: .*' "$T/tracerd.log"))" \
  grep -q "the [0-9]* built-in rules" "$T/tracerd.log"

ctl run --name names -- env PATH=/usr/local/bin:/usr/bin:/bin sh -c "cd '$B' && /usr/bin/python3 '$CWLTOOL' --version && ./pytool && ./pyenvtool &&
  ./pltool && python3 -m json.tool in.json" > /dev/null 2>&1
tool_of() { # NAME COMMAND: the Tool of the run's processes whose command is COMMAND
  jobstat -j "$1" --processes -P -n -o Tool,Command | awk -F'|' -v c="$2" '$2 == c { print $1 }' | sort -u | paste -sd,
}
t=$(tool_of names "/usr/bin/python3 $CWLTOOL --version")
check "/usr/bin/python3 $CWLTOOL is named cwltool ($t)" [ "$t" = cwltool ]
t=$(tool_of names "/usr/bin/python3 ./pytool")
check "./pytool (#!/usr/bin/python3) is named pytool ($t)" [ "$t" = pytool ]
t=$(tool_of names "python3 ./pyenvtool")
check "./pyenvtool (#!/usr/bin/env python3) is named pyenvtool ($t)" [ "$t" = pyenvtool ]
t=$(tool_of names "/usr/bin/perl -w ./pltool")
check "./pltool (#!/usr/bin/perl -w) is named pltool ($t)" [ "$t" = pltool ]
t=$(tool_of names "python3 -m json.tool in.json")
check "python3 -m json.tool keeps its dotted name ($t)" [ "$t" = json.tool ]
tools=$(jobstat -j names --tools -P -n -o Tool | sort | paste -sd,)
check "--tools: cwltool, json.tool, pltool, pyenvtool, pytool ($tools)" \
  [ "$tools" = "cwltool,json.tool,pltool,pyenvtool,pytool" ]

# a configured file that is missing: said so, with the built-in rules still in force
sed -i '/^ToolRules = /d' "$T/tracer.conf"
echo "ToolRules = $T/none/tools.rules" >> "$T/tracer.conf"
kill -HUP $DAEMON_PID; sleep 0.5
check "a missing ToolRules file is named in the log" \
  grep -q "ToolRules $T/none/tools.rules: No such file or directory: the [0-9]* built-in rules only" "$T/tracerd.log"
ctl run --name names2 -- sh -c "cd '$B' && ./pytool" > /dev/null 2>&1
t=$(tool_of names2 "/usr/bin/python3 ./pytool")
check "... and the built-in rules stay in force ($t)" [ "$t" = pytool ]

# a real CWL workflow: cwltool runs sort, then gzip
if [ -x /usr/bin/cwltool ]; then
  W=$T/cwl
  mkdir -p "$W"
  cat > "$W/sort.cwl" <<'CWL'
cwlVersion: v1.2
class: CommandLineTool
baseCommand: sort
inputs:
  input: {type: File, inputBinding: {position: 1}}
stdout: sorted.txt
outputs:
  sorted: {type: stdout}
CWL
  cat > "$W/gzip.cwl" <<'CWL'
cwlVersion: v1.2
class: CommandLineTool
baseCommand: [gzip, -c]
inputs:
  input: {type: File, inputBinding: {position: 1}}
stdout: sorted.txt.gz
outputs:
  gz: {type: stdout}
CWL
  cat > "$W/wf.cwl" <<'CWL'
cwlVersion: v1.2
class: Workflow
inputs:
  infile: File
outputs:
  out: {type: File, outputSource: compress/gz}
steps:
  sort:
    run: sort.cwl
    in: {input: infile}
    out: [sorted]
  compress:
    run: gzip.cwl
    in: {input: sort/sorted}
    out: [gz]
CWL
  seq 200000 -1 1 > "$W/in.txt"
  ctl run --name cwl -- env PATH=/usr/local/bin:/usr/bin:/bin cwltool --no-container --quiet --outdir "$W/out" --tmpdir-prefix "$W/tmp/" \
    --tmp-outdir-prefix "$W/tmp/" "$W/wf.cwl" --infile "$W/in.txt" > "$W/cwltool.out" 2>&1
  check "cwltool ran the workflow (sorted.txt.gz: $(zcat "$W/out/sorted.txt.gz" 2>/dev/null | head -1))" \
    [ "$(zcat "$W/out/sorted.txt.gz" 2>/dev/null | head -1)" = 1 ]
  jobstat -j cwl --tools -P -o Tool,NProcs,TotalCPU,MaxRSS > "$W/tools.txt"
  sed 's/^/    /' "$W/tools.txt"
  for t in cwltool sort gzip; do
    check "--tools: $t" grep -q "^$t|" "$W/tools.txt"
  done
else
  echo "  skip the cwltool workflow: /usr/bin/cwltool is not installed (apt-get install cwltool)"
fi
finish
