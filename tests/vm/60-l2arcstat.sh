#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 480
# debug-check: skip the userspace tool's output, the same on every kernel
#
# scripts/l2arcstat against real devices:
#  - module not loaded / no device: a clear message, exit 1;
#  - `l2arcstat 1 3` prints a header and three rows of the default fields;
#  - an interval in which a known workload ran to completion: 4 KiB
#    O_DIRECT reads (python3), prefetch_disable 1, of 50 cached blocks
#    twice (100 hits) and 50 new blocks (50 misses).  Our own /proc
#    snapshots just before and after the workload lie inside l2arcstat's
#    interval (15 s; the workload starts once the tool sleeps after its
#    first snapshot), nothing else reads the device, so the tool's counter
#    differences equal ours and its hit% equals
#    100 * dhits / (dhits + diohits + dmisses) computed from them (66.67);
#    the text output shows the same (truncated, like arcstat: 66);
#  - -o json (interval and totals) parses with json.loads; -o prometheus
#    parses with the strict line parser of tests/tools/test_l2arcstat.py,
#    one sample per device, values equal to /proc;
#  - a device removed while `l2arcstat -d NAME` runs: "disappeared", exit 1.
# Devices: brd RAM disks: ram0 origin and ram1 cache device of c0, ram2
# origin of c1 (no cache device).
. "$(dirname "$0")/lib.sh"

tool=$L2ARC_TOP/scripts/l2arcstat
tools=$L2ARC_TOP/tests/tools

# ---- no module, no device
unload_module
out=$("$tool" 2>&1) && die "l2arcstat without the module exited 0: $out"
[[ $out == *"dm-l2arc module not loaded"* ]] || die "no module: '$out'"
echo "no module: $out"
load_module
out=$("$tool" 1 1 2>&1) && die "l2arcstat without devices exited 0: $out"
assert_eq "no devices message" "l2arcstat: no dm-l2arc devices" "$out"
echo "no devices: $out"

mk_brd 3 16
sz=$(sectors /dev/ram0)
dm_create c0 "0 $sz l2arc /dev/ram0 /dev/ram1 8 4 arc_max 8388608 prefetch_disable 1"
dm_create c1 "0 $sz l2arc /dev/ram2 - 8 4 arc_max 8388608 prefetch_disable 1"
m0=$(dmsetup info -c --noheadings -o minor c0 | tr -d ' ')
m1=$(dmsetup info -c --noheadings -o minor c1 | tr -d ' ')
proc0=/proc/dm-l2arc/dm-$m0/arcstats

pyread /dev/mapper/c0 0-49
pyread /dev/mapper/c1 0-9 0-4

# ---- l2arcstat 1 3: header + 3 rows
"$tool" 1 3 >l2arcstat-1-3.txt || die "l2arcstat 1 3 failed"
cat l2arcstat-1-3.txt
assert_eq "lines of l2arcstat 1 3" 4 "$(wc -l <l2arcstat-1-3.txt)"
assert_eq "header" "time read hit% miss% ioh% arcsz c mru% mfu% mrug% mfug% l2hit% l2size l2read l2write" \
	"$(head -n 1 l2arcstat-1-3.txt | xargs)"
awk 'NR > 1 && (NF != 15 || $1 !~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/) { exit 1 }' \
	l2arcstat-1-3.txt || die "bad rows in l2arcstat 1 3"

# ---- a known workload inside one interval
# wait_sleeping PID: until PID (l2arcstat) sleeps in clock_nanosleep (230)
# or nanosleep (35): it has taken its first snapshot (the VM may be too
# slow for a fixed delay: python3 can take seconds to start).
wait_sleeping() {
	local i nr
	for ((i = 0; i < 600; i++)); do
		nr=$(cut -d ' ' -f 1 "/proc/$1/syscall" 2>/dev/null) || nr=gone
		case $nr in
		230 | 35) return 0 ;;
		gone) die "l2arcstat (pid $1) ended before its first interval" ;;
		esac
		sleep 0.05
	done
	die "l2arcstat (pid $1) never reached its first sleep"
}
window() {	# window OUTFILE MISSES ARGS...: l2arcstat ARGS 15 1 around the
	# workload: blocks 0..49 twice (cached: 100 hits), then MISSES (A-B, 50
	# blocks never read before: 50 misses)
	local out=$1 misses=$2 pid
	shift 2
	"$tool" "$@" 15 1 >"$out" &
	pid=$!
	wait_sleeping "$pid"
	cp "$proc0" "snap-a.$out"
	pyread /dev/mapper/c0 0-49 0-49 "$misses"
	cp "$proc0" "snap-b.$out"
	[[ -d /proc/$pid && $(cut -d ' ' -f 1 "/proc/$pid/syscall") =~ ^(230|35)$ ]] ||
		die "the workload outlasted l2arcstat's interval (slow VM?)"
	wait "$pid" || die "l2arcstat $* failed"
	cat "$out"
}
window interval.json 100-149 -d c0 -o json
python3 - snap-a.interval.json snap-b.interval.json interval.json <<-'EOF' || die "json interval check failed"
	import json, sys
	def rows(path):
	    lines = open(path).read().splitlines()
	    assert int(lines[0].split()[3]) == len(lines) - 2, path
	    return {n: int(v) for n, _, v in (l.split() for l in lines[2:])}
	a, b = rows(sys.argv[1]), rows(sys.argv[2])
	objs = [json.loads(l) for l in open(sys.argv[3])]
	assert len(objs) == 1, objs
	o = objs[0]
	d = {k: b[k] - a[k] for k in ('hits', 'iohits', 'misses', 'l2_hits', 'l2_misses')}
	print('differences from /proc:', d)
	assert (d['hits'], d['iohits'], d['misses']) == (100, 0, 50), d
	for k in ('hits', 'iohits', 'misses', 'l2_hits', 'l2_misses'):
	    assert o['counters'][k] == d[k], (k, o['counters'][k], d[k])
	want = 100.0 * d['hits'] / (d['hits'] + d['iohits'] + d['misses'])
	print('hit%% l2arcstat %r, from the counters %r' % (o['hit%'], want))
	assert o['hit%'] == want, (o['hit%'], want)
	assert o['miss%'] == 100.0 * d['misses'] / 150, o['miss%']
	n = d['l2_hits'] + d['l2_misses']
	assert o['l2hit%'] == (100.0 * d['l2_hits'] / n if n else 0), o['l2hit%']
	assert o['device'] == 'c0' and o['kernel_name'].startswith('dm-'), o
	assert abs(o['read'] - 150 / o['interval']) < 1e-9, o
	assert 14.5 < o['interval'] < 16, o['interval']
EOF
window interval.txt 200-249 -d "dm-$m0" -f time,read,hit%,miss%,ioh%
hit=$(awk 'NR == 2 { print $3 }' interval.txt)
miss=$(awk 'NR == 2 { print $4 }' interval.txt)
assert_eq "text hit% (100 * 100 / 150, truncated)" 66 "$hit"
assert_eq "text miss% (100 * 50 / 150, truncated)" 33 "$miss"

# ---- totals, json
"$tool" -o json >totals.json || die "l2arcstat -o json failed"
"$tool" -d c1 -o json >>totals.json || die "l2arcstat -d c1 -o json failed"
python3 - totals.json /proc/dm-l2arc/arcstats "/proc/dm-l2arc/dm-$m1/arcstats" <<-'EOF' || die "json totals check failed"
	import json, sys
	objs = [json.loads(l) for l in open(sys.argv[1])]
	assert len(objs) == 2, objs
	for o, path in zip(objs, sys.argv[2:]):
	    rows = {l.split()[0]: int(l.split()[2]) for l in open(path).read().splitlines()[2:]}
	    assert o['since_creation'], o
	    for k in ('hits', 'iohits', 'misses', 'mru_hits', 'mfu_hits'):
	        assert o['counters'][k] == rows[k], (path, k, o['counters'][k], rows[k])
	    read = rows['hits'] + rows['iohits'] + rows['misses']
	    assert o['hit%'] == 100.0 * rows['hits'] / read, (o['hit%'], rows)
	    print(o['device'], 'hits', rows['hits'], 'read', read, 'hit%', o['hit%'])
	assert objs[1]['device'] == 'c1'
	assert (objs[1]['counters']['hits'], objs[1]['counters']['misses']) == (5, 10)
EOF

# ---- -d by dm name, kernel name and /dev/mapper path: the same device
a=$("$tool" -d c0 -o json -f hit%) || die "l2arcstat -d c0 failed"
for d in "dm-$m0" /dev/mapper/c0; do
	b=$("$tool" -d "$d" -o json -f hit%) || die "l2arcstat -d $d failed"
	python3 -c 'import json, sys; a, b = map(json.loads, sys.argv[1:]); assert (a["device"], a["counters"]["hits"], a["hit%"]) == (b["device"], b["counters"]["hits"], b["hit%"]) == ("c0", 200, 100 * 200 / 350), (a, b)' "$a" "$b" ||
		die "-d $d differs from -d c0"
done

# ---- prometheus
"$tool" -o prometheus >metrics.prom || die "l2arcstat -o prometheus failed"
"$tool" -o prometheus -d c1 10 10 >metrics-c1.prom || die "l2arcstat -o prometheus -d c1 failed"
head -n 6 metrics.prom
python3 - "$tools" metrics.prom metrics-c1.prom "$proc0" "/proc/dm-l2arc/dm-$m1/arcstats" <<-'EOF' || die "prometheus check failed"
	import sys
	sys.path.insert(0, sys.argv[1])
	from test_l2arcstat import parse_prometheus
	fams = parse_prometheus(open(sys.argv[2]).read())
	one = parse_prometheus(open(sys.argv[3]).read())
	p0 = {l.split()[0]: int(l.split()[2]) for l in open(sys.argv[4]).read().splitlines()[2:]}
	p1 = {l.split()[0]: int(l.split()[2]) for l in open(sys.argv[5]).read().splitlines()[2:]}
	assert sorted(fams) == sorted('dm_l2arc_' + r for r in p0), sorted(fams)
	for r in ('hits', 'misses', 'mru_hits', 'mfu_hits', 'c_max', 'l2_ndev'):
	    s = fams['dm_l2arc_' + r]['samples']
	    assert s == {(('device', 'c0'),): p0[r], (('device', 'c1'),): p1[r]}, (r, s)
	    assert one['dm_l2arc_' + r]['samples'] == {(('device', 'c1'),): p1[r]}, r
	assert fams['dm_l2arc_hits']['type'] == 'counter'
	assert fams['dm_l2arc_size']['type'] == 'gauge'
	assert fams['dm_l2arc_l2_size']['type'] == 'gauge'
	assert p0['l2_ndev'] == 1 and p1['l2_ndev'] == 0, (p0['l2_ndev'], p1['l2_ndev'])
	print('prometheus: %d families, 2 devices' % len(fams))
EOF

# ---- a device that goes away while watched
"$tool" -d c1 1 10 >gone.out 2>gone.err &
pid=$!
wait_sleeping "$pid"
sleep 1.5
dm_remove c1
rc=0
wait "$pid" || rc=$?
cat gone.out gone.err
assert_eq "exit status after the device went away" 1 "$rc"
grep -q "l2arcstat: device c1 (dm-$m1) disappeared" gone.err || die "no 'disappeared' message"
grep -q Traceback gone.err && die "traceback"

# ---- no device again
dm_remove c0
out=$("$tool" -o prometheus 2>&1) && die "l2arcstat with no device exited 0: $out"
assert_eq "no devices message" "l2arcstat: no dm-l2arc devices" "$out"
echo "l2arcstat ok"
