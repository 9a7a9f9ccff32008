# The store is bounded: finished units older than StoreRetention go with their processes and
# samples, the oldest go while the store is over StoreMaxSize, a running unit never; the file
# stops growing. The units are written straight into the store (10 000 of them through the
# socket would take minutes); the pruning is the real daemon's.
# lane: daemon cpu: 0.3
. "$(dirname "$0")/lib.sh"
write_config
# housekeeping prunes: a round a second, not every 10 s, for waits that mean the same
printf 'StoreRetention = 1m\nStoreMaxSize = 4M\nHousekeepingInterval = 1s\n' >> "$T/tracer.conf"
start_daemon || exit 1

# a unit that is still running, started long ago, must stay (it outlasts the test: pruning
# waits for housekeeping rounds)
ctl run --name keeper -- sleep 300 2>/dev/null &
keeper=$!
sleep 0.5

now_ns=$(date +%s%N)
old=$((now_ns - 3600 * 1000000000)) # an hour ago: past StoreRetention
fill() { # fill FIRST COUNT END_NS: finished units with 5 processes each (120-byte argv)
  db -cmd ".timeout 10000" <<SQL
WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i < $1 + $2 - 1)
INSERT INTO units(id, name, kind, uid, owner_uid, start_ns, end_ns, state, exit_status)
  SELECT i, 'filler' || i, 'local', 0, 0, $3 - 1000000000, $3, 'COMPLETED', 0 FROM n;
WITH RECURSIVE n(i) AS (SELECT $1 * 5 UNION ALL SELECT i + 1 FROM n WHERE i < ($1 + $2) * 5 - 1)
INSERT INTO processes(boot_id, pid, start_boot_ns, unit, comm, argv, cpu_ns)
  SELECT 'filler', i, i, i / 5, 'filler', randomblob(120), 1 FROM n;
SQL
}
fill 100000 5000 "$old"
check "5000 old units are in the store" [ "$(db "SELECT COUNT(*) FROM units WHERE name LIKE 'filler%'")" -eq 5000 ]
for _ in $(seq 150); do
  [ "$(db "SELECT COUNT(*) FROM units WHERE name LIKE 'filler%'")" -eq 0 ] && break
  sleep 0.2
done
check "units older than StoreRetention are pruned" [ "$(db "SELECT COUNT(*) FROM units WHERE name LIKE 'filler%'")" -eq 0 ]
check "with their processes" [ "$(db "SELECT COUNT(*) FROM processes WHERE boot_id='filler'")" -eq 0 ]
check "the running unit stays" [ "$(db "SELECT state FROM units WHERE name='keeper'")" = RUNNING ]

# recent units: kept by age, pruned by size; the file stops growing
in_use() { db "SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count())" | awk -v p="$(db 'PRAGMA page_size')" '{print $1 * p}'; }
sizes=() worst=0
for wave in 1 2 3 4 5; do
  fill $((200000 + wave * 2000)) 2000 "$now_ns"
  for _ in $(seq 100); do [ "$(in_use)" -le $((4 * 1024 * 1024)) ] && break; sleep 0.2; done
  used=$(in_use); [ "$used" -gt "$worst" ] && worst=$used
  sizes+=("$(stat -c %s "$T/state/$NODE/tracer.db")")
done
echo "  store file after each wave of 2000 units (10 000 in all): ${sizes[*]} bytes"
echo "  pages in use after pruning, at most: $worst bytes (StoreMaxSize 4M)"
check "pages in use are brought back under StoreMaxSize after each wave" [ "$worst" -le $((4 * 1024 * 1024)) ]
check "the file stops growing (the last wave no more than 5 % above the third)" [ "${sizes[4]}" -le $(( sizes[2] * 105 / 100 )) ]
check "recent units were kept as far as the size allows" [ "$(db "SELECT COUNT(*) FROM units WHERE name LIKE 'filler%'")" -gt 0 ]
check "the running unit still stays" [ "$(db "SELECT state FROM units WHERE name='keeper'")" = RUNNING ]
kill $keeper 2>/dev/null; wait $keeper 2>/dev/null
finish
