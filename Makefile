# SPDX-License-Identifier: GPL-2.0-only
#
# oot-rdma: the single entry point.  `make help` lists the targets.
#
# The target kernel: KDIR (a kbuild tree) and KVER (its release).  KDIR
# defaults to the running kernel's build tree when it has one, else to the
# newest Debian amd64 headers installed; KVER follows from KDIR.

ifeq ($(KDIR),)
  ifneq ($(KVER),)
    KDIR := /lib/modules/$(KVER)/build
  else ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
    KDIR := /lib/modules/$(shell uname -r)/build
  else
    KDIR := $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64)))
  endif
endif
ifeq ($(KVER),)
  # Debian's include/config/kernel.release holds the upstream version;
  # the release modules are built for is UTS_RELEASE.
  KVER := $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
	    $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif
export KDIR KVER

VERSION := $(shell cat VERSION)
MODDIR := $(DESTDIR)/lib/modules/$(KVER)/updates

# Our irdma reads a few fields of ice's private structures, whose layout
# only the target kernel's own ice headers give (scripts/ice-headers:
# from linux-source-6.1 into the cache, once); without them irdma is not
# built (nor named by dkms.conf).  OOT_ICE_DIR= names a directory instead.
ifeq ($(origin OOT_ICE_DIR),undefined)
  OOT_ICE_DIR := $(shell KDIR=$(KDIR) scripts/ice-headers 2>/dev/null)
endif
KBUILD := $(MAKE) -C $(KDIR) M=$(CURDIR) OOT_ICE_DIR=$(OOT_ICE_DIR)

.PHONY: all modules clean install uninstall deps deps-qemu check demo vm sparse \
	checkpatch coccicheck help kdir debug-kernel check-debug check-long interop perf \
	perf-pair kabi-check soak soak-hw deb deb-check

all: modules

kdir:
	@test -f "$(KDIR)/Makefile" || { \
	  echo "error: no kernel build tree at KDIR='$(KDIR)'; run 'make deps'" >&2; \
	  exit 1; }

# Two kbuild passes when needed: scripts/kabi-crc sets to the target
# kernel's the CRCs of exports whose genksyms expansion differs from that
# of Debian's own module only in core-private types no module outside our
# set sees, proven against the symtypes of Debian's core modules
# (scripts/stock-symtypes: built once from linux-source-6.1; without it
# every such CRC stays ours, with a warning; Documentation/infiniband/
# core.rst, "The exported ABI").  When it changed one (status 10), the
# second pass runs modpost again with them.
modules: kdir
	+$(KBUILD) W=1 KBUILD_SYMTYPES=1 modules
	+@if ! command -v python3 >/dev/null; then \
	  echo 'warning: no python3: CRCs left as genksyms made them' >&2; \
	  exit 0; \
	fi; \
	rc=0; scripts/kabi-crc --apply || rc=$$?; \
	if [ $$rc = 10 ]; then $(KBUILD) W=1 KBUILD_SYMTYPES=1 modules; \
	elif [ $$rc != 0 ]; then exit $$rc; fi

clean:
	+@test ! -f "$(KDIR)/Makefile" || $(KBUILD) clean
	+@test ! -d tools/testing/selftests/rdma/modules/oot_warn || \
	  $(MAKE) -C tools/testing/selftests/rdma/modules/oot_warn clean
	rm -rf .debug-build

# Our modules go to updates/, which depmod searches before kernel/, so
# they replace the in-tree ones of the same name without touching them.
# A module of OOT_PREVIEW_MODULES (scripts/lib/common.sh) only with
# OOT_PREVIEW=1, none of OOT_WITHOUT= (OOT_WITHOUT=irdma: a host that
# keeps Debian's irdma for iWARP).
install: modules
	@for ko in $$(. scripts/lib/common.sh; oot_built_modules $(CURDIR) | \
		      sed -e 's|^$(CURDIR)/||'); do \
	  echo "  INSTALL $(MODDIR)/$$ko"; \
	  install -D -m 644 $$ko $(MODDIR)/$$ko || exit 1; \
	done
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

uninstall:
	@for ko in $$(sed -e 's|^$(CURDIR)/||' -e 's/\.o$$/.ko/' modules.order 2>/dev/null); do \
	  rm -fv $(MODDIR)/$$ko; \
	done
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

deps:
	scripts/setup

# deps, and what scripts/qemu-build needs for our QEMU with the device
# models (make check's hardware tests).
deps-qemu:
	scripts/setup --qemu

# The Debian package oot-rdma-dkms_$(VERSION)_all.deb in .deb-build/,
# built with dpkg-buildpackage and dh-dkms, lintian clean (scripts/deb).
deb:
	scripts/setup --deb
	scripts/deb

# make deb, then the package installed, used and removed in a guest of
# the in-tree stack (DKMS builds under TCG: long; scripts/deb-check).
deb-check: deps
	scripts/setup --deb
	scripts/deb-check

sparse: kdir
	scripts/sparse-check

checkpatch:
	scripts/checkpatch-all

coccicheck:
	scripts/coccicheck

# Our exports (names, CRCs, modules) against $(KDIR)/Module.symvers, the
# ABI it names, with the classes of scripts/kabi-crc: what a stock ULP
# needs to load on our core (also a step of check).
# KABI_ARGS=--summary prints only the classes and the counts.
kabi-check: modules
	scripts/kabi-check $(KABI_ARGS)

# Build, static checks, harness self-test and the VM selftests; one closing
# line `N passed, N failed, N skipped`.  STOCK=1 runs the VM selftests on
# the in-tree stack instead of ours, for comparison.
check: $(if $(filter debug,$(KERNEL)),deps debug-kernel,deps-qemu)
	scripts/check

# The debug-kernel tier (Documentation/infiniband/testing.rst): Debian's
# kernel rebuilt with KASAN, lockdep, kmemleak and failslab, once, into the
# cache (long: see there); `make check KERNEL=debug` runs the selftests on it.
debug-kernel:
	scripts/setup --debug-kernel
	scripts/debug-kernel build

check-debug:
	$(MAKE) check KERNEL=debug

# make check with the long cases that check leaves out for its half-hour
# bound (lib.sh, long_cases()).
check-long: deps-qemu
	OOT_LONG=1 scripts/check

# Half an hour of perftest on the modelled ConnectX (hw_mlx5_soak).
soak-hw: deps-qemu modules
	OOT_TIMEOUT_SCALE=4 scripts/vm --hw mlx5 --smp 1 --timeout 3000 -- \
		env OOT_LONG=1 tools/testing/selftests/rdma/run_tests.sh hw_mlx5_soak.sh

# make check-long with the cycle and race selftests at SOAK (default 4)
# times their rounds (lib.sh, soak()): the counts they had before make
# check's half-hour bound, and longer, in one guest of two vCPUs, where
# the races run truly at once.  OOT_TESTS= narrows it as for check.
soak: deps-qemu
	OOT_LONG=1 OOT_SOAK=$(or $(SOAK),4) OOT_GUESTS=1 OOT_SMP=2 scripts/check

demo: deps modules
	scripts/vm --timeout 600 -- scripts/demo-guest

# Two guests on one network: ours against the in-tree stack, both
# directions, with captures judged by tshark and an ICRC check (A=, B=:
# ours or stock; A_HW=mlx5, B_HW=mlx5: that guest's NIC is the modelled
# ConnectX; see scripts/interop).
interop: deps modules
	scripts/interop --a $(or $(A),ours) --b $(or $(B),stock) \
		$(if $(A_HW),--a-hw $(A_HW)) $(if $(B_HW),--b-hw $(B_HW))

# The speed of the data path and of rdma_cm, ours against the in-tree
# stack, interleaved VM boots (a benchmark, not part of check; an hour or
# more on a busy host).
# PERF_ARGS="--rounds 5 --quick ..." passes options to the script;
# HW=mlx5 or HW=e810: on a modelled NIC instead of rxe (needs our QEMU).
perf: deps modules $(if $(HW),deps-qemu)
	scripts/perf-compare $(if $(HW),--hw $(HW)) $(PERF_ARGS)

# Multi-packet messages across two guests: RC, UC and UD ping-pong times
# per iteration and their ratios, ours on both guests against stock on
# both (a benchmark; about 15 minutes).  PAIR_ARGS= passes options.
perf-pair: deps modules
	scripts/pair-pingpong $(PAIR_ARGS)

# An interactive shell in the guest, our modules installed (STOCK=1: not).
vm: deps modules
	scripts/vm --shell

help:
	@echo 'make [modules]   build the modules (KDIR=, KVER= to choose the kernel)'
	@echo 'make deps        install build and test dependencies (Debian packages)'
	@echo 'make check       build, sparse, checkpatch and the VM selftests'
	@echo 'make check KERNEL=debug  the VM selftests on the debug kernel'
	@echo '                 (KASAN, lockdep, kmemleak; built once: make debug-kernel)'
	@echo 'make check-long  make check with the long cases it leaves out (iSER, NFSv3, ...)'
	@echo 'make soak        make check-long with the cycle and race tests at SOAK=4x rounds, one guest of 2 vCPUs'
	@echo 'make soak-hw     half an hour of perftest on the modelled ConnectX (hw_mlx5_soak)'
	@echo 'make demo        boot the VM and show what works'
	@echo 'make vm          interactive shell in the VM (STOCK=1: in-tree stack)'
	@echo 'make interop     two VMs: ours against stock, both directions (A=, B=)'
	@echo 'make perf        data path and rdma_cm speed, ours against stock (PERF_ARGS=...)'
	@echo 'make perf-pair   RC/UC/UD ping-pong across two VMs, ours and stock (PAIR_ARGS=...)'
	@echo 'make install     install into /lib/modules/$$KVER/updates and depmod'
	@echo 'make sparse      sparse (C=2) over our sources'
	@echo 'make checkpatch  checkpatch.pl over our sources'
	@echo 'make coccicheck  the kernel'"'"'s semantic patches (coccinelle) over our sources'
	@echo 'make kabi-check  our exports and CRCs against $$KDIR/Module.symvers (KABI_ARGS=--summary)'
	@echo 'make deb         the Debian package oot-rdma-dkms (DKMS) in .deb-build/, lintian checked'
	@echo 'make deb-check   make deb, then apt install/use/remove it in the VM'
