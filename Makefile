# SPDX-License-Identifier: GPL-2.0-only
#
# dm-l2arc: build, check, test and demo.  See README.
#
#   make                 build build/$(KVER)/dm-l2arc.ko
#   make KVER=<kver>     ... against another installed kernel's headers
#   make KVER=$(scripts/debug-kernel)   ... against the debug kernel
#   make check           everything CI runs; ends with "N passed, N failed"
#   make demo            boot a VM and show the target at work
#   make bench           benchmarks in one VM -> results/<date>-<time>/report.md (QUICK=1: ~11 min;
#                        WORKLOADS=4,8: only those workloads)
#   make soak            the 30-minute soak in one VM (DURATION=<min>, KVER=6.1|6.12|debug)
#   make deps            install the Debian packages this project needs
#   make kunit           the KUnit suites under UML (linux-source-6.1)
#   make vmtest          the VM tests on both kernels and the debug kernel
#   make lint            checkpatch --strict and sparse on both kernels
#   make tools           build/tools/replay (trace replayer for the VM tests)
#   make install         l2arcsetup, l2arcstat, dm-l2arc.service, /etc/l2arctab,
#                        66-dm-l2arc-origin.rules, an initramfs-tools hook
#                        (PREFIX=/usr/local,
#                        SYSCONFDIR=/etc, UDEVRULESDIR=/etc/udev/rules.d
#                        for PREFIX=/usr/local, else $(PREFIX)/lib/udev/rules.d,
#                        DESTDIR for packages; the module
#                        itself goes in with DKMS: README, "Installing")
#
# KVER defaults to the running kernel when its build directory exists,
# else to the newest installed Debian 6.1 kernel.

KVER ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
		else scripts/kvers --61 2>/dev/null; fi)
# the debug kernel (scripts/debug-kernel) lives in the cache, not /lib/modules
KDIR ?= $(if $(filter %-l2arc-debug,$(KVER)),$(shell scripts/debug-kernel --dir)/obj,/lib/modules/$(KVER)/build)
BUILD ?= build/$(KVER)
SRCS := $(wildcard dm-l2arc/*.c dm-l2arc/*.h) dm-l2arc/Kbuild

.PHONY: all module clean check demo bench deps kunit vmtest lint tools soak install

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
BINDIR ?= $(PREFIX)/bin
UNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR ?= $(PREFIX)/share/doc/dm-l2arc
SYSCONFDIR ?= /etc
# udev reads /etc/udev/rules.d and /usr/lib/udev/rules.d, not /usr/local/lib/udev
UDEVRULESDIR ?= $(if $(filter /usr/local,$(PREFIX)),/etc/udev/rules.d,$(PREFIX)/lib/udev/rules.d)
# initramfs-tools reads /etc/initramfs-tools/hooks and /usr/share/initramfs-tools/hooks
HOOKDIR ?= $(if $(filter /usr/local,$(PREFIX)),/etc/initramfs-tools/hooks,$(PREFIX)/share/initramfs-tools/hooks)

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
	scripts/bench $(if $(QUICK),-q) $(if $(WORKLOADS),-w $(WORKLOADS))

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

# the tools, the boot-time assembly, the udev rule that marks the
# origins (LVM, systemd and udisks leave them alone) and the initramfs
# hook that puts it into the initramfs; /etc/l2arctab only when there is
# none (never the administrator's own).  The rule's old name
# (61-dm-l2arc-origin.rules, which ran before md's rules) is removed.
install:
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR) $(DESTDIR)$(UDEVRULESDIR) \
		$(DESTDIR)$(HOOKDIR)
	sed 's|^tab=$${L2ARCTAB:-/etc/l2arctab}$$|tab=$${L2ARCTAB:-$(SYSCONFDIR)/l2arctab}|' \
		scripts/l2arcsetup >$(DESTDIR)$(SBINDIR)/l2arcsetup
	chmod 755 $(DESTDIR)$(SBINDIR)/l2arcsetup
	install -m 755 scripts/l2arcstat $(DESTDIR)$(BINDIR)/l2arcstat
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		-e 's|@DOCDIR@|$(DOCDIR)|g' \
		etc/dm-l2arc.service.in >$(DESTDIR)$(UNITDIR)/dm-l2arc.service
	chmod 644 $(DESTDIR)$(UNITDIR)/dm-l2arc.service
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		etc/66-dm-l2arc-origin.rules.in \
		>$(DESTDIR)$(UDEVRULESDIR)/66-dm-l2arc-origin.rules
	chmod 644 $(DESTDIR)$(UDEVRULESDIR)/66-dm-l2arc-origin.rules
	rm -f $(DESTDIR)$(UDEVRULESDIR)/61-dm-l2arc-origin.rules
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		-e 's|@UDEVRULESDIR@|$(UDEVRULESDIR)|g' \
		etc/initramfs-hook.in >$(DESTDIR)$(HOOKDIR)/dm-l2arc
	chmod 755 $(DESTDIR)$(HOOKDIR)/dm-l2arc
	install -m 644 etc/l2arctab $(DESTDIR)$(DOCDIR)/l2arctab.example
	install -m 644 Documentation/dm-l2arc.rst Documentation/design.rst \
		$(DESTDIR)$(DOCDIR)/
	[ -e $(DESTDIR)$(SYSCONFDIR)/l2arctab ] || \
		install -m 644 etc/l2arctab $(DESTDIR)$(SYSCONFDIR)/l2arctab

