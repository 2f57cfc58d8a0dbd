#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# debug-check: skip userspace stacking (udev, LVM, md) over a device the module only creates and removes, as every test on that kernel does
#
# md RAID1 under dm-l2arc, LVM and ext4 on top, with the real udev rules
# of lvm2 and mdadm (systemd-udevd runs in the guest) and the project's
# 66-dm-l2arc-origin.rules, as make install puts them:
#  a. md0 = RAID1 of ram0 and ram1; l2arctab: p over md0's by-id name,
#     cache ram2.  udev marks md0 an origin (DM_L2ARC_ORIGIN=1, ID_FS_TYPE
#     dm_l2arc_origin, SYSTEMD_READY=0); l2arcsetup lvm-filter --write
#     puts the filter into lvmlocal.conf (lvm.conf stays Debian's);
#     l2arcsetup start gives p the DM UUID L2ARC-p;
#  b. with Debian's lvm.conf, vgcreate and lvcreate on /dev/mapper/p
#     work and pvs shows only p (no duplicate PV on md0); ext4 on the LV
#     holds a file "old";
#  c. a boot: md0 assembled again (its udev events, as at boot, with
#     LVM's pvscan autoactivation): no LV is active on md0, with the
#     filter and without it (the udev rule alone: L2ARC_ORIGIN_FS_TYPE
#     LVM2_member, ID_FS_TYPE dm_l2arc_origin);
#  d. the control, as before this change: without the rule, the same
#     boot activates the VG on the raw md0;
#  e. the boot as it should be: md0, then l2arcsetup start: LVM's rule
#     activates the VG on p; the file edited to "new"; the next boot
#     reads "new" through p (the stale read of the issue: an LV that LVM
#     activated on md0 took the edit, and p served the old copy);
#  f. without the filter, with p up: LVM sees the PV twice and refuses
#     to change the VG ("Cannot update volume group vgl2 with duplicate
#     PV devices."): the filter is what makes LVM on top work.
# Devices: brd /dev/ram0, ram1 (md0's members), ram2 (p's cache), 64 MiB.
. "$(dirname "$0")/lib.sh"

for t in mdadm lvm /lib/systemd/systemd-udevd udevadm mkfs.ext4; do
	command -v "$t" >/dev/null || die "$t is missing (scripts/deps installs it)"
done
load_module
modprobe raid1
mk_brd 3 64
setup=$L2ARC_TOP/scripts/l2arcsetup
tab=$PWD/l2arctab
rules=/run/udev/rules.d/66-dm-l2arc-origin.rules

# ---- LVM's configuration, writable: Debian's own files, copied
mkdir -p /tmp/etc-lvm
cp -a /etc/lvm/. /tmp/etc-lvm/
mount --bind /tmp/etc-lvm /etc/lvm
add_cleanup umount /etc/lvm
cmp /etc/lvm/lvm.conf /tmp/etc-lvm/lvm.conf

# ---- udev, with the rule as make install writes it (its paths here)
install_rule() {
	mkdir -p /run/udev/rules.d
	sed -e "s|@SBINDIR@|$L2ARC_TOP/scripts|g" -e "s|@SYSCONFDIR@|$PWD|g" \
		"$L2ARC_TOP/etc/66-dm-l2arc-origin.rules.in" >"$rules"
	[[ ${1:-} == first ]] || udevadm control --reload
}
stop_udev() {
	udevadm control --exit
	rm -f "$rules"
}
install_rule first
# as on a real system: dmsetup and LVM wait for udev to make the nodes
unset DM_DISABLE_UDEV
/lib/systemd/systemd-udevd --daemon
add_cleanup stop_udev
udevadm trigger --action=add --subsystem-match=block
udevadm settle -t 120

# what LVM's udev rule found on the last boot: cleared as at a boot
# (/run is empty then)
new_boot() { rm -rf /run/lvm/pvs_online /run/lvm/vgs_online /run/lvm/pvs_lookup; }
prop() { udevadm info -q property -n "$1" | sed -n "s/^$2=//p"; }
active_lvs() { dmsetup ls --target linear | awk '$1 ~ /^vgl2-/ { print $1 }'; }

# ---- a. md0, the l2arctab, the filter, p
mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
	--assume-clean /dev/ram0 /dev/ram1
stop_md() { ! [[ -e /sys/block/md0 ]] || mdadm --stop /dev/md0; }
add_cleanup stop_md
udevadm settle -t 120
uuid=$(mdadm --detail --export /dev/md0 | sed -n 's/^MD_UUID=//p')
link=/dev/disk/by-id/md-uuid-$uuid
[[ -b $link ]] || die "udev made no $link"
echo "p $link /dev/ram2 8 arc_max=4M,l2arc_noprefetch=0" >"$tab"
udevadm trigger --action=change /dev/md0
udevadm settle -t 120
assert_eq "md0's DM_L2ARC_ORIGIN" 1 "$(prop /dev/md0 DM_L2ARC_ORIGIN)"
assert_eq "md0's ID_FS_TYPE" dm_l2arc_origin "$(prop /dev/md0 ID_FS_TYPE)"
assert_eq "md0's SYSTEMD_READY" 0 "$(prop /dev/md0 SYSTEMD_READY)"
assert_eq "md0's L2ARC_ORIGIN_FS_TYPE (blank md0)" "" "$(prop /dev/md0 L2ARC_ORIGIN_FS_TYPE)"
assert_eq "ram2's DM_L2ARC_ORIGIN (a cache device)" "" "$(prop /dev/ram2 DM_L2ARC_ORIGIN)"

out=$("$setup" -t "$tab" lvm-filter --write)
assert_eq "lvm-filter --write" "/etc/lvm/lvmlocal.conf: LVM now rejects 1 origin(s); update-initramfs -u copies it into the initramfs" "$out"
assert_eq "LVM's global_filter" "global_filter=\"r|^$link\$|\"" \
	"$(lvm config devices/global_filter 2>/dev/null)"
cmp /etc/lvm/lvm.conf /tmp/etc-lvm/lvm.conf
"$setup" -t "$tab" start
add_cleanup "$setup" -t "$tab" stop
assert_eq "p's DM UUID" L2ARC-p "$(dmsetup info -c --noheadings -o uuid p)"

# ---- b. LVM on p with Debian's lvm.conf
pvcreate -q /dev/mapper/p
vgcreate -q vgl2 /dev/mapper/p
lvcreate -q -y -n lv -L 32M vgl2
deactivate() { vgchange -q -an vgl2 >/dev/null 2>&1 || true; }
add_cleanup deactivate
pvs --noheadings -o pv_name,vg_name 2>pvs.err >pvs.out
assert_eq "pvs" "/dev/mapper/p vgl2" "$(awk '{ print $1, $2 }' pvs.out)"
assert_eq "pvs's warnings" "" "$(cat pvs.err)"
assert_eq "the LV's device" "/dev/mapper/p(0)" "$(lvs --noheadings -o devices vgl2/lv | tr -d ' ')"
mkfs.ext4 -q /dev/vgl2/lv
mkdir -p /tmp/mnt
mount /dev/vgl2/lv /tmp/mnt
echo old >/tmp/mnt/file
umount /tmp/mnt
vgchange -q -an vgl2
"$setup" -t "$tab" stop
udevadm trigger --action=change /dev/md0
udevadm settle -t 120
assert_eq "md0's L2ARC_ORIGIN_FS_TYPE" LVM2_member "$(prop /dev/md0 L2ARC_ORIGIN_FS_TYPE)"
assert_eq "md0's ID_FS_TYPE" dm_l2arc_origin "$(prop /dev/md0 ID_FS_TYPE)"

# md0 stopped and assembled again: its add and change events, as at boot
boot_md0() {
	mdadm --stop /dev/md0
	new_boot
	mdadm --assemble /dev/md0 /dev/ram0 /dev/ram1
	udevadm settle -t 120
}

# ---- c. a boot: nothing activates the VG on md0
boot_md0
assert_eq "LVs active after a boot, with the rule and the filter" "" "$(active_lvs)"
mv /etc/lvm/lvmlocal.conf /tmp/lvmlocal.conf
boot_md0
assert_eq "LVs active after a boot, with the rule alone" "" "$(active_lvs)"

# ---- d. the control: without the rule, LVM activates the VG on md0
rm -f "$rules"
udevadm control --reload
boot_md0
wait_for 60 "LVM to activate vgl2 on md0 without the rule" \
	test -n "$(active_lvs)"
assert_eq "the LV's device without the rule" "/dev/md0(0)" \
	"$(lvs --noheadings -o devices vgl2/lv 2>/dev/null | tr -d ' ')"
vgchange -q -an vgl2
install_rule
mv /tmp/lvmlocal.conf /etc/lvm/lvmlocal.conf

# ---- e. the boot as it should be: md0, then p; LVM activates on p
boot_md0
assert_eq "LVs active before p" "" "$(active_lvs)"
"$setup" -t "$tab" start
udevadm settle -t 120
wait_for 60 "LVM to activate vgl2 on p" test -n "$(active_lvs)"
assert_eq "the LV's device" "/dev/mapper/p(0)" "$(lvs --noheadings -o devices vgl2/lv | tr -d ' ')"
mount /dev/vgl2/lv /tmp/mnt
assert_eq "the file" old "$(cat /tmp/mnt/file)"
echo new >/tmp/mnt/file
umount /tmp/mnt

# ---- f. without the filter LVM sees md0 too and refuses changes
mv /etc/lvm/lvmlocal.conf /tmp/lvmlocal.conf
rc=0
lvcreate -q -y -n lv2 -L 4M vgl2 >lvcreate.out 2>&1 || rc=$?
mv /tmp/lvmlocal.conf /etc/lvm/lvmlocal.conf
cat lvcreate.out
[[ $rc != 0 ]] || die "lvcreate with md0 and p both seen succeeded"
grep -qx '  Cannot update volume group vgl2 with duplicate PV devices.' lvcreate.out ||
	die "lvcreate without the filter did not refuse for duplicate PVs"

vgchange -q -an vgl2
"$setup" -t "$tab" stop
boot_md0
assert_eq "LVs active after the last boot, before p" "" "$(active_lvs)"
"$setup" -t "$tab" start
udevadm settle -t 120
wait_for 60 "LVM to activate vgl2 on p again" test -n "$(active_lvs)"
mount /dev/vgl2/lv /tmp/mnt
assert_eq "the file after the next boot" new "$(cat /tmp/mnt/file)"
umount /tmp/mnt
e2fsck -fn /dev/vgl2/lv >/dev/null
assert_eq "p's health" ok "$(dmsetup status p | awk '{ print $NF }')"
vgchange -q -an vgl2
echo "PASS: md RAID1 under p, LVM and ext4 over it, the origin hidden from LVM"
