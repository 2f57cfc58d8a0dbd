# SPDX-License-Identifier: GPL-2.0-only
#
# dm-l2arc: build, check, test and demo.  See README.
#
#   make                 build build/$(KVER)/dm-l2arc.ko
#   make KVER=<kver>     ... against another installed kernel's headers
#   make KVER=$(scripts/debug-kernel)   ... against the debug kernel
#   make check           everything CI runs; ends with "N passed, N failed"
#   make demo            boot a VM and show the target at work
#   make bench           benchmarks in one VM -> results/<date>/report.md (QUICK=1: < 10 min)
#   make soak            the 30-minute soak in one VM (DURATION=<min>, KVER=6.1|6.12|debug)
#   make deps            install the Debian packages this project needs
#   make kunit           the KUnit suites under UML (linux-source-6.1)
#   make vmtest          the VM tests on both kernels
#   make lint            checkpatch --strict and sparse on both kernels
#   make tools           build/tools/replay (trace replayer for the VM tests)
#
# KVER defaults to the running kernel when its build directory exists,
# else to the newest installed Debian 6.1 kernel.

KVER ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
		else scripts/kvers --61 2>/dev/null; fi)
# the debug kernel (scripts/debug-kernel) lives in the cache, not /lib/modules
KDIR ?= $(if $(filter %-l2arc-debug,$(KVER)),$(shell scripts/debug-kernel --dir)/obj,/lib/modules/$(KVER)/build)
BUILD ?= build/$(KVER)
SRCS := $(wildcard dm-l2arc/*.c dm-l2arc/*.h) dm-l2arc/Kbuild

.PHONY: all module clean check demo bench deps kunit vmtest lint tools soak

all: module

module:
	@test -n "$(KVER)" || { echo "no kernel headers found: run 'make deps'" >&2; exit 1; }
	@mkdir -p $(BUILD)
	@rm -f $(filter-out $(addprefix $(BUILD)/,$(notdir $(SRCS))),$(wildcard $(BUILD)/*.c $(BUILD)/*.h))
	@cp -p $(SRCS) $(BUILD)/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(BUILD) CONFIG_DM_L2ARC=m modules

clean:
	rm -rf build

check:
	scripts/check

demo:
	scripts/demo

bench:
	scripts/bench $(if $(QUICK),-q)

soak:
	scripts/soak

deps:
	scripts/deps

kunit:
	scripts/kunit

vmtest:
	tests/run

lint:
	scripts/lint

tools: build/tools/replay

build/tools/replay: tests/tools/replay.c
	@mkdir -p $(@D)
	gcc -O2 -Wall -Wextra -o $@ $<
