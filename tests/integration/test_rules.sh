# Tool rules in the real daemon: processes are named when they end by the built-in rules and
# then those of the ToolRules file, which add to them; SIGHUP reloads the file; a malformed
# file is refused with FILE:LINE, the rules in force stay in force and the daemon carries on;
# a file removed leaves the built-in rules; a malformed file at start stops tracerd with
# FILE:LINE.
# lane: daemon cpu: 0.2
. "$(dirname "$0")/lib.sh"
RULES=$T/tools.rules
printf '# local rules, read after the built-in ones\n' > "$RULES"
write_config
sed -i "s|^ToolRules = .*|ToolRules = $RULES|" "$T/tracer.conf"
mkdir -p "$T/bin"
printf '#!/bin/sh\nexit 0\n' > "$T/bin/mytool"
chmod 755 "$T/bin/mytool"
start_daemon || { fail "tracerd started"; finish; exit 1; }

tools_of() { # NAME: the Tool of each of the run's processes that ran mytool (the script twice,
  # and GNU time, which forks it), sorted, on one line
  jobstat -j "$1" --processes -P -n -o Tool,Command |
    awk -F'|' -v s="/bin/sh $T/bin/mytool sub1" -v t="/usr/bin/time -o /dev/null $T/bin/mytool sub1" \
      '$2 == s || $2 == t { print $1 }' | sort | paste -sd,
}
traced() { # NAME: trace mytool run directly, through env (which execs it) and through time
  ctl run --name "$1" -- sh -c "$T/bin/mytool sub1; env A=1 $T/bin/mytool sub1; /usr/bin/time -o /dev/null $T/bin/mytool sub1" \
    > /dev/null 2>&1
}

traced before
check "built-in rules: mytool, through env and time too, no subcommand ($(tools_of before))" \
  [ "$(tools_of before)" = "mytool,mytool,mytool,mytool" ]

n=$(wc -l < "$RULES")
printf 'include mytool subcommand=first\nfrobnicate mytool\n' >> "$RULES"
kill -HUP $DAEMON_PID; sleep 0.5
check "a malformed rules file is refused with its file:line ($(grep -o "tools.rules:[0-9]*" "$T/tracerd.log" | tail -1))" \
  grep -q "tool rules refused, the rules in force stay: .*tools.rules:$((n + 2)):" "$T/tracerd.log"
check "the daemon carries on" kill -0 $DAEMON_PID
traced refused
check "the rules in force stayed: no subcommand yet ($(tools_of refused))" [ "$(tools_of refused)" = "mytool,mytool,mytool,mytool" ]

sed -i '$d' "$RULES" # the bad line goes, the new include stays
kill -HUP $DAEMON_PID; sleep 0.5
check "the fixed file is loaded after the built-in rules" \
  bash -c "tail -3 '$T/tracerd.log' | grep -q '1 tool rules from $RULES after the [0-9]* built-in ones'"
traced after
check "the new rule names the subcommand, through the wrappers (built-in rules) too ($(tools_of after))" \
  [ "$(tools_of after)" = "mytool sub1,mytool sub1,mytool sub1,mytool sub1" ]
check "processes recorded before the reload keep their names" [ "$(tools_of before)" = "mytool,mytool,mytool,mytool" ]

mv "$RULES" "$RULES.off"
kill -HUP $DAEMON_PID; sleep 0.5
check "a removed file is said so" \
  bash -c "tail -3 '$T/tracerd.log' | grep -q 'ToolRules $RULES: No such file or directory: the [0-9]* built-in rules only'"
traced removed
check "... and its rules are gone, the built-in ones stay ($(tools_of removed))" \
  [ "$(tools_of removed)" = "mytool,mytool,mytool,mytool" ]
mv "$RULES.off" "$RULES"

printf 'frobnicate x\n' >> "$RULES"
sed "s|^SocketDir = .*|SocketDir = $T/run2|" "$T/tracer.conf" > "$T/bad.conf"
"$BUILD/tracerd" -f -N badrules -c "$T/bad.conf" 2> "$T/bad.out"; rc=$?
check "a malformed rules file at start stops tracerd (rc $rc)" [ $rc -ne 0 ]
check "... naming file:line" grep -q "tools.rules:$((n + 2)):" "$T/bad.out"
finish
