# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# scripts/lib.sh - shell helpers shared by the VM tests (tests/vm/lib.sh
# sources it), scripts/bench and scripts/demo, in the guest.  Defines
# functions only: no options, traps or variables of the caller change.
#
#   minor_of NAME               the minor number of the dm device NAME
#   dm_kname NAME               its kernel name, dm-N
#   arcstats_value FILE ROW     ROW's value in an arcstats file, or nothing
#   modprobe_deps KO            load the modules KO depends on (insmod
#                               does not; modprobe would)
#   brd_load COUNT SIZE_MiB     load brd with COUNT RAM disks of SIZE_MiB

minor_of() {
	dmsetup info -c --noheadings -o minor "$1" | tr -d ' '
}

dm_kname() {
	echo "dm-$(minor_of "$1")"
}

# arcstats_value FILE ROW: kstat text format, two header lines, then
# "name type value"
arcstats_value() {
	awk -v n="$2" 'NR > 2 && $1 == n { print $3 }' "$1"
}

modprobe_deps() {
	local m rc=0
	for m in $(modinfo -F depends "$1" | tr ',' ' '); do
		modprobe "$m" || rc=1
	done
	return $rc
}

brd_load() {
	modprobe brd rd_nr="$1" rd_size=$(($2 * 1024)) max_part=0
}
