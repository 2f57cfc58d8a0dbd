#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
# debug-timeout-factor: 2
#
# The table, message and module parameter fuzzer (tests/vm/fuzz.py): 3000
# random table lines (1000 on the debug kernel), valid and not, checked
# against a model of the ctr; between them random reloads, suspends,
# messages and parameter writes on a device that a thread keeps reading
# and writing.  Seeded: the seed is printed first; L2ARC_FUZZ_SEED=<seed>
# repeats a run, L2ARC_FUZZ_TABLES sets the number of lines.  vm-run does
# not pass the host's environment into the guest; to set them:
#   scripts/vm-run -k 6.1 -t 900 /bin/bash -c \
#     'L2ARC_FUZZ_SEED=<seed> tests/vm/runner-guest fuzz'
# Devices: brd RAM disks /dev/ram0 (origin) and /dev/ram1 (cache device)
# for the lines; a 64 KiB dm-linear over /dev/ram4 (16 blocks of 4 KiB,
# too small for larger blocks), a read-only dm-linear, /tmp (a
# directory), /tmp/fz-file, /dev/null, missing paths and the loaded device
# itself as bad devices; /dev/ram2 and /dev/ram3 under the live device.
. "$(dirname "$0")/lib.sh"

load_module
tables=3000
# the debug kernel loads a table three times slower and fuzzes beside
# two other VMs in make check (2,000 lines took 668 s there in CI; 1,000
# reach every kind of line: make check's 60-minute budget)
[[ $L2ARC_KVER == *-l2arc-debug ]] && tables=1000
P=/sys/module/dm_l2arc/parameters
# every parameter goes back to its value of now
for f in "$P"/*; do
	add_cleanup eval "echo $(cat "$f") >$f"
done
mk_brd 5 64
: >/tmp/fz-file
# over ram4: a dm device that holds ram1 would make every table on ram1
# refused ("Cache device is in use by ...")
dm_create fzsmall "0 128 linear /dev/ram4 0"
dmsetup create fzro --readonly --table "0 2048 linear /dev/ram4 4096"
add_cleanup dm_remove fzro
dmsetup create fz --notable
dmsetup mknodes fz
add_cleanup dm_remove fz
dm_create fzlive "0 $(sectors /dev/ram2) l2arc /dev/ram2 /dev/ram3 8"

python3 "$(dirname "$0")/fuzz.py" /dev/ram0 /dev/ram1 /dev/mapper/fzsmall \
	/dev/mapper/fzro /dev/ram2 /dev/ram3 "${L2ARC_FUZZ_TABLES:-$tables}" ||
	die "the fuzzer found failures (its seed is at the top of its output)"
# the live device's directory still adds up after all of it
dmsetup message fzlive 0 verify || die "verify on fzlive failed after the fuzz"
echo "PASS: fuzz"
