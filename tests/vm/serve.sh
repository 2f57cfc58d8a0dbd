# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# tests/vm/serve.sh - serve a block device over the network with the
# kernel's own targets and reach it with the standard initiators, inside
# the test VM over loopback (127.0.0.1).  Source it after lib.sh.
#
#   iscsi_export DEV            LIO iSCSI target (targetcli-fb): a block
#                               backstore over DEV, one LUN, no auth
#   iscsi_login                 open-iscsi: discovery, login; sets
#                               SERVE_DISK to the SCSI disk (/dev/sdX)
#   iscsi_logout                log out (nothing if not logged in)
#   nvmet_export DEV            nvmet over TCP (configfs): one subsystem
#                               with DEV as namespace 1, port 4420
#   nvme_login                  nvme-cli: nvme connect; sets SERVE_DISK
#                               to the namespace (/dev/nvmeXnY)
#   nvme_logout                 nvme disconnect (nothing if not connected)
#   serve_test iscsi|nvme       the VM test of 81-serve-iscsi and
#                               82-serve-nvme (below)
# Each registers its undoing with add_cleanup (logout or disconnect
# before the target goes), so call them in the test's shell, not in $().  Needs targetcli-fb, open-iscsi and nvme-cli
# (scripts/deps) and the target modules of Debian's kernels; serve_skip
# tells why a kernel cannot (the debug kernel has no target modules).

SERVE_IQN=iqn.2026-12.org.dm-l2arc:test
SERVE_NQN=nqn.2026-12.org.dm-l2arc:test

serve_skip() {	# serve_skip iscsi|nvme: skip the test when it cannot run here
	local m t tools
	if [[ $1 == iscsi ]]; then
		tools="targetcli iscsiadm iscsid dbus-daemon"
		m="target_core_iblock iscsi_target_mod iscsi_tcp"
	else
		tools="nvme"
		m="nvmet_tcp nvme_tcp"
	fi
	for t in $tools; do
		command -v "$t" >/dev/null || skip "$t is not installed (scripts/deps)"
	done
	for t in $m; do
		modinfo "$t" >/dev/null 2>&1 || skip "kernel $(uname -r) has no $t module"
	done
}

net_up() {
	ip link set lo up
}

# ------------------------------------------------------------------ iSCSI
tcli() {	# targetcli, its preferences and log in a writable HOME
	HOME=$SERVE_HOME targetcli "$@" >>"$SERVE_HOME/targetcli.log" 2>&1 ||
		die "targetcli $*: $(tail -n 3 "$SERVE_HOME/targetcli.log")"
}

iscsi_export() {
	SERVE_HOME=$PWD/targetcli-home
	mkdir -p "$SERVE_HOME"
	net_up
	# targetcli asks the system D-Bus for tcmu-runner's backstores and
	# fails without one: a private bus of the session kind stands in
	if [[ -z ${DBUS_SYSTEM_BUS_ADDRESS:-} ]]; then
		local pid
		export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/l2arc-dbus.sock
		pid=$(dbus-daemon --session --fork --print-pid \
			--address="$DBUS_SYSTEM_BUS_ADDRESS") || die "dbus-daemon did not start"
		add_cleanup kill "$pid"
		# so that a second export (make bench, one device after
		# another) starts its own bus
		add_cleanup unset DBUS_SYSTEM_BUS_ADDRESS
	fi
	modprobe target_core_iblock
	modprobe iscsi_target_mod
	# the root file system is read-only: no saveconfig on exit
	tcli set global auto_save_on_exit=false
	add_cleanup iscsi_unexport
	tcli /backstores/block create name=l2test dev="$1"
	tcli /iscsi create "$SERVE_IQN"
	local tpg=/iscsi/$SERVE_IQN/tpg1
	tcli "$tpg/luns" create /backstores/block/l2test
	tcli "$tpg" set attribute authentication=0 demo_mode_write_protect=0 \
		generate_node_acls=1 cache_dynamic_acls=1
	# targetcli-fb makes a portal on 0.0.0.0:3260 with the target
	tcli "$tpg/portals" ls
}

iscsi_unexport() {
	HOME=$SERVE_HOME targetcli clearconfig confirm=True >>"$SERVE_HOME/targetcli.log" 2>&1
}

iscsi_login() {
	local disk="" i
	# node records go to /etc/iscsi, read-only here: a tmpfs copy
	if ! mountpoint -q /etc/iscsi; then
		mkdir -p /run/l2arc-iscsi
		cp -a /etc/iscsi/. /run/l2arc-iscsi/
		mount --bind /run/l2arc-iscsi /etc/iscsi
		add_cleanup umount /etc/iscsi
	fi
	mkdir -p /run/lock/iscsi
	modprobe iscsi_tcp
	modprobe sd_mod		# udev would load it for the new LUN; no udev here
	iscsid
	add_cleanup iscsid_stop
	iscsiadm -m discovery -t sendtargets -p 127.0.0.1 >&2
	iscsiadm -m node -T "$SERVE_IQN" -p 127.0.0.1 --login >&2
	add_cleanup iscsi_logout
	for ((i = 0; i < 100; i++)); do
		disk=$(iscsiadm -m session -P 3 2>/dev/null |
			sed -n 's/.*Attached scsi disk \([a-z]*\).*/\1/p' | head -n 1)
		[[ -n $disk && -b /dev/$disk ]] && break
		sleep 0.2
	done
	[[ -n $disk && -b /dev/$disk ]] || die "no SCSI disk after the iSCSI login"
	SERVE_DISK=/dev/$disk
}

iscsid_stop() {	# and wait until it is gone, so that it can start again
	local i
	pkill -x iscsid || return 0
	for ((i = 0; i < 50; i++)); do
		pgrep -x iscsid >/dev/null || return 0
		sleep 0.1
	done
}

iscsi_logout() {	# idempotent
	iscsiadm -m session >/dev/null 2>&1 || return 0
	iscsiadm -m node -T "$SERVE_IQN" -p 127.0.0.1 --logout >&2
}

# ------------------------------------------------------------------ NVMe/TCP
NVMET=/sys/kernel/config/nvmet

nvmet_export() {
	local s=$NVMET/subsystems/$SERVE_NQN
	net_up
	modprobe nvmet_tcp
	if ! mountpoint -q /sys/kernel/config; then
		mount -t configfs configfs /sys/kernel/config
		add_cleanup umount /sys/kernel/config
	fi
	add_cleanup nvmet_unexport
	mkdir "$s"
	echo 1 >"$s/attr_allow_any_host"
	mkdir "$s/namespaces/1"
	echo -n "$1" >"$s/namespaces/1/device_path"
	echo 1 >"$s/namespaces/1/enable"
	mkdir "$NVMET/ports/1"
	echo tcp >"$NVMET/ports/1/addr_trtype"
	echo ipv4 >"$NVMET/ports/1/addr_adrfam"
	echo 127.0.0.1 >"$NVMET/ports/1/addr_traddr"
	echo 4420 >"$NVMET/ports/1/addr_trsvcid"
	ln -s "$s" "$NVMET/ports/1/subsystems/$SERVE_NQN"
}

nvmet_unexport() {
	local s=$NVMET/subsystems/$SERVE_NQN
	rm -f "$NVMET/ports/1/subsystems/$SERVE_NQN"
	[[ ! -d $NVMET/ports/1 ]] || rmdir "$NVMET/ports/1"
	if [[ -d $s/namespaces/1 ]]; then
		echo 0 >"$s/namespaces/1/enable"
		rmdir "$s/namespaces/1"
	fi
	[[ ! -d $s ]] || rmdir "$s"
}

nvme_login() {
	local c ns="" i
	modprobe nvme_tcp
	nvme connect -t tcp -a 127.0.0.1 -s 4420 -n "$SERVE_NQN" >&2
	add_cleanup nvme_logout
	for ((i = 0; i < 100; i++)); do
		for c in /sys/class/nvme/nvme*; do
			[[ $(cat "$c/subsysnqn" 2>/dev/null) == "$SERVE_NQN" ]] || continue
			ns=$(compgen -G "/dev/${c##*/}n[0-9]*" | head -n 1 || true)
			# with native multipath the namespace is nvmeXcYnZ's head
			[[ -n $ns ]] || ns=$(compgen -G "/dev/nvme*n1" | head -n 1 || true)
		done
		[[ -n $ns && -b $ns ]] && break
		sleep 0.2
	done
	[[ -n $ns && -b $ns ]] || die "no NVMe namespace after nvme connect"
	SERVE_DISK=$ns
}

nvme_logout() {	# idempotent
	[[ -n $(compgen -G "/sys/class/nvme/nvme*") ]] || return 0
	nvme disconnect -n "$SERVE_NQN" >&2
}

# serve_test iscsi|nvme: an l2arc device (origin brd /dev/ram0, cache
# device /dev/ram1, 4 KiB blocks, a 4 MiB ARC, the feed every second)
# exported and reached over 127.0.0.1.  fio randrw, bsrange 4k-1m, crc32c
# verify through the initiator's disk: one pass (fio's random map: no
# write overlaps another, so every written block must read back as
# written; two passes with bsrange overlap writes, and fio then reports
# false errors even on a bare RAM disk), then the verify pass again.  The
# disk's whole content, read over the network, must equal the origin's
# after the logout or disconnect, and the feed must have written to the
# cache device and read back from it (l2_write_bytes, l2_hits > 0).
serve_test() {
	local kind=$1 len proc disk i v r q maxkb sha_disk sha_origin
	serve_skip "$kind"
	load_module
	mk_brd 2 64
	len=$(sectors /dev/ram0)
	dm_create l2s "0 $len l2arc /dev/ram0 /dev/ram1 8 6 arc_max 4194304 l2arc_feed_secs 1 l2arc_noprefetch 0"
	proc=$(proc_of l2s)
	if [[ $kind == iscsi ]]; then
		iscsi_export /dev/mapper/l2s
		iscsi_login
	else
		nvmet_export /dev/mapper/l2s
		nvme_login
	fi
	disk=$SERVE_DISK
	assert_eq "size of $disk over $kind (sectors)" "$len" "$(sectors "$disk")"
	# the initiator's requests are not capped at one cache block (an
	# io_opt of one block did that to iSCSI: sd's max_sectors followed)
	q=/sys/block/${disk#/dev/}/queue
	maxkb=$(cat "$q/max_sectors_kb")
	echo "$disk: max_sectors_kb $maxkb, optimal_io_size" \
		"$(cat "$q/optimal_io_size"), minimum_io_size $(cat "$q/minimum_io_size")"
	((maxkb >= 64)) ||
		die "$kind caps requests at $maxkb KiB (a 1 MiB read is cut into more than 16 commands)"
	for v in 0 1; do
		fio --name="$kind" --filename="$disk" --direct=1 --ioengine=psync \
			--rw=randrw --bsrange=4k-1m --size=48M --verify=crc32c \
			--do_verify=1 --verify_fatal=1 --verify_only=$v \
			--randseed=81 --output=fio.out ||
			{ cat fio.out; die "fio verify over $kind failed (verify_only=$v)"; }
		! grep -q 'verify:.*bad\|err= *[1-9]' fio.out ||
			{ cat fio.out; die "fio over $kind reported errors"; }
	done
	grep -E 'READ:|WRITE:' fio.out
	# read twice more, so that the feed has something to serve from L2
	for i in 1 2; do
		dd if="$disk" of=/dev/null bs=1M count=48 iflag=direct status=none
		sleep 2
	done
	sha_disk=$(dd if="$disk" bs=1M iflag=direct status=none | sha256sum)
	if [[ $kind == iscsi ]]; then iscsi_logout; else nvme_logout; fi
	sha_origin=$(dd if=/dev/ram0 bs=1M iflag=direct status=none | sha256sum)
	assert_eq "origin against what $kind read" "$sha_disk" "$sha_origin"
	for r in l2_write_bytes l2_hits; do
		v=$(arcstats_row "$proc" $r)
		echo "$r $v"
		((v > 0)) || die "$r is 0: the feed did not run under $kind I/O"
	done
	expect_rows "$proc" l2_cksum_bad=0 l2_io_error=0
	echo "serve-$kind ok"
}

