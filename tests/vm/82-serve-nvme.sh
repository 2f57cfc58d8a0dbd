#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 400
# debug-check: skip the debug kernel is built without nvmet and the NVMe over TCP host
#
# Serving the cached device over NVMe/TCP (issue 12): nvmet exports the
# l2arc device as namespace 1 of a subsystem on a TCP port (configfs),
# nvme-cli connects over 127.0.0.1; fio verify through the namespace, the
# origin compared with what NVMe/TCP read, the feed at work (serve_test in
# serve.sh).  Disconnect and removal leave no warning in the kernel log
# (the runner's scan).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

serve_test nvme
