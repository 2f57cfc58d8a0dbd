#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
# debug-check: skip the debug kernel is built without the SCSI target and initiator (LIO, iscsi_tcp)
#
# Serving the cached device over iSCSI (issue 12): LIO exports the l2arc
# device as a block backstore LUN (targetcli-fb), open-iscsi logs in over
# 127.0.0.1; fio verify through the SCSI disk, the origin compared with
# what iSCSI read, the feed at work (serve_test in serve.sh).  Logout and
# removal leave no warning in the kernel log (the runner's scan).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

serve_test iscsi
